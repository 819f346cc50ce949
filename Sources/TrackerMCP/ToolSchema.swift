import TrackerAPI
import TrackerModel
import TrackerOperations

/// The JSON Schemas of a tool, read off its command's flag specs (the registry), its positional words and its extras.
extension MCPTool {
    /// The command's spec: its operation's own, so help, completion and the tool never disagree.
    package var spec: CommandSpec { command }

    /// The command's flags this tool offers, in the spec's order.
    package var offeredFlags: [FlagSpec] {
        spec.flags.filter { flag in
            !Self.faceFlags.contains(flag.name) && !withheld.contains(flag.name)
                && (onlyFlags?.contains(flag.name) ?? true)
                // A positional word given as a flag when another argument is there (`project` with `task`) is
                // described once, as the positional word.
                && !positionals.contains { $0.flagWhen != nil && "--" + $0.name == flag.name }
        }
    }

    /// `inputSchema`: every argument typed and described, nothing else accepted.
    package var inputSchema: JSONValue {
        var properties: [(String, JSONValue)] = positionals.map { positional in
            (positional.name, .object([("type", .string("string")), ("description", .string(positional.description))]))
        }
        for flag in offeredFlags {
            properties.append((Self.argumentName(flag.name), Self.schema(of: flag)))
        }
        for extra in extras { properties.append(Self.schema(of: extra)) }
        var required = positionals.filter(\.isRequired).map { JSONValue.string($0.name) }
        if words == ["add"] { required += [.string("name")] }
        if extras.contains(.confirm) { required.append(.string("confirm")) }
        return .object([
            ("type", .string("object")), ("properties", .object(properties)), ("required", .array(required)),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// `outputSchema`: the shape of `structuredContent` on success.
    package var outputSchema: JSONValue {
        func described(_ text: String) -> JSONValue { .object([("description", .string(text))]) }
        let properties: [(String, JSONValue)]
        var required: [JSONValue] = []
        switch result {
        case .object(let keys):
            properties = keys.map { ($0.0, described($0.1)) }
        case .array(let noun, let item), .listing(let noun, let item), .lines(let noun, let item):
            let itemType: JSONValue = if case .lines = result { .string("string") } else { .string("object") }
            properties = [
                (
                    noun,
                    .object([
                        ("type", .string("array")), ("items", .object([("type", itemType)])),
                        ("description", .string("each \(item)")),
                    ])
                ),
                (
                    "total",
                    .object([
                        ("type", .string("integer")),
                        (
                            "description",
                            .string("how many matched, counted by tracker (more than returned when truncated)")
                        ),
                    ])
                ),
                (
                    "truncated",
                    .object([
                        ("type", .string("boolean")),
                        ("description", .string("whether only the first `limit` are returned")),
                    ])
                ),
            ]
            required = [.string(noun), .string("total"), .string("truncated")]
        }
        let result: JSONValue = .object([
            ("type", .string("object")), ("properties", .object(properties)), ("required", .array(required)),
            ("additionalProperties", .bool(false)),
        ])
        // A write may wait for a person instead: its answer is then the approval it waits for.
        guard !isReadOnly else { return result }
        return .object([("type", .string("object")), ("anyOf", .array([result, Self.approvalNeeded]))])
    }

    /// What a write held for approval answers: nothing written, the diff, the approval's id (and page); or, asked of
    /// the person through the client, the approval settled (`applied` with its result, `rejected`).
    static let approvalNeeded: JSONValue = {
        func described(_ text: String) -> JSONValue { .object([("description", .string(text))]) }
        let keys: [(String, String)] = [
            ("id", "the approval's id"), ("approval", "the approval's id, for approval_status"),
            ("status", "approval_needed: nothing was written yet"), ("tool", "this tool"), ("face", "mcp or serve"),
            ("client", "the assistant's client"), ("expires", "when the plan stops waiting (UTC)"),
            ("records", "how many records it would touch"), ("diff", "what it would change, a line a record"),
            ("approvalUrl", "the page the person approves it on (serve)"), ("message", "what to tell the person"),
            ("result", "once the person approved it (asked through the client): {entry, records, created}"),
            ("conflicts", "what changed since the plan, while conflicted"),
            ("already", "whether it was settled before this call"),
        ]
        return .object([
            ("type", .string("object")), ("properties", .object(keys.map { ($0.0, described($0.1)) })),
            ("required", .array(["status", "approval", "diff"].map(JSONValue.string))),
            ("additionalProperties", .bool(false)),
        ])
    }()

    /// The tool as `tools/list` gives it.
    package var listing: JSONValue {
        var hints: [(String, JSONValue)] = [("title", .string(title)), ("readOnlyHint", .bool(annotations.readOnly))]
        if !annotations.readOnly {
            hints += [
                ("destructiveHint", .bool(annotations.destructive)), ("idempotentHint", .bool(annotations.idempotent)),
            ]
        }
        hints.append(("openWorldHint", .bool(false)))
        return .object([
            ("name", .string(name)), ("title", .string(title)), ("description", .string(description)),
            ("inputSchema", inputSchema), ("outputSchema", outputSchema), ("annotations", .object(hints)),
        ])
    }

    package static func schema(of flag: FlagSpec) -> JSONValue {
        var help = flag.help
        for verb in ["add: ", "update: ", "delete: "] where help.hasPrefix(verb) { help.removeFirst(verb.count) }
        let type: [(String, JSONValue)]
        switch flag.type {
        case .toggle: type = [("type", .string("boolean"))]
        case .text: type = [("type", .string("string"))]
        case .whole:
            type = [
                ("type", .string("integer")), ("minimum", .number(Double(flag.minimum))),
                ("maximum", .number(Double(flag.maximum))),
            ]
        case .number: type = [("type", .string("number")), ("minimum", .number(0))]
        case .quantity: type = [("type", .array([.string("number"), .string("string")]))]
        case .date:
            type = [("type", .string("string"))]
            help += " (YYYY-MM-DD, today, tomorrow, a weekday, +3d, +2w)"
        case .choice: type = [("type", .string("string")), ("enum", .array(flag.choices.map(JSONValue.string)))]
        case .list: type = [("type", .string("array")), ("items", .object([("type", .string("string"))]))]
        }
        return .object(type + [("description", .string(help))])
    }

    /// `limit`: a whole number from 1 to the maximum, with its default.
    private static func limit(_ value: Int, _ description: String) -> (String, JSONValue) {
        (
            "limit",
            .object([
                ("type", .string("integer")), ("minimum", .number(1)), ("maximum", .number(Double(maximumLimit))),
                ("default", .number(Double(value))), ("description", .string(description)),
            ])
        )
    }

    package static func schema(of extra: Extra) -> (String, JSONValue) {
        switch extra {
        case .limit:
            return limit(defaultLimit, "return at most this many (the total is counted all the same)")
        case .sectionLimit:
            return limit(
                defaultSectionLimit,
                "at most this many items in each list, each list as {items, total, truncated}: report the total, ask again with a larger limit for more"
            )
        case .confirm:
            return (
                "confirm",
                .object([
                    ("type", .string("boolean")),
                    (
                        "description",
                        .string("must be true: the person agreed to delete it; nothing is deleted without it")
                    ),
                ])
            )
        case .ifAbsent:
            return (
                "if_absent",
                .object([
                    ("type", .string("boolean")), ("default", .bool(true)),
                    (
                        "description",
                        .string("return the record of that exact name if there is one instead of creating another")
                    ),
                ])
            )
        case .completeFlags, .completeVerbs:
            return (
                "complete",
                .object([
                    ("type", .string("boolean")), ("description", .string("true: mark it done; false: open again")),
                ])
            )
        }
    }
}
