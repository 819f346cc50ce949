/// Where a JSON exporter writes, so each is written once: bytes (`JSONWriter`, what `--json` prints, a listing of
/// 50,000 projects without a value per project) or a value (`JSONTree`, what `mcp` gives as structured content, never
/// text read back). Members and elements are separated by the sink.
public protocol JSONSink {
    mutating func beginObject()
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    /// The name of the object's next member.
    mutating func key(_ name: String)
    mutating func string(_ value: String)
    mutating func number(_ value: Double)
    mutating func bool(_ flag: Bool)
    mutating func null()
    /// Any value, whole.
    mutating func value(_ value: JSONValue)
}

extension JSONSink {
    /// A string, or `null` when there is none.
    public mutating func string(or value: String?) {
        if let value { string(value) } else { null() }
    }

    /// `{ … }` around what `members` writes.
    public mutating func object(_ members: (inout Self) -> Void) {
        beginObject()
        members(&self)
        endObject()
    }

    /// `[ … ]` around what `elements` writes.
    public mutating func array(_ elements: (inout Self) -> Void) {
        beginArray()
        elements(&self)
        endArray()
    }
}

/// A JSON value built as an exporter writes it.
public struct JSONTree: JSONSink {
    private var members: [[(String, JSONValue)]] = []
    private var keys: [String] = []
    private var elements: [[JSONValue]] = []
    /// Which container is innermost: true for an object.
    private var isObject: [Bool] = []
    /// The value written, once its outermost container is closed.
    public private(set) var result: JSONValue = .null

    public init() {}

    /// The value `write` writes.
    public static func build(_ write: (inout JSONTree) -> Void) -> JSONValue {
        var tree = JSONTree()
        write(&tree)
        return tree.result
    }

    private mutating func add(_ value: JSONValue) {
        guard let inObject = isObject.last else { return result = value }
        if inObject {
            members[members.count - 1].append((keys[keys.count - 1], value))
        } else {
            elements[elements.count - 1].append(value)
        }
    }

    public mutating func beginObject() {
        isObject.append(true)
        members.append([])
        keys.append("")
    }

    public mutating func endObject() {
        isObject.removeLast()
        keys.removeLast()
        add(.object(members.removeLast()))
    }

    public mutating func beginArray() {
        isObject.append(false)
        elements.append([])
    }

    public mutating func endArray() {
        isObject.removeLast()
        add(.array(elements.removeLast()))
    }

    public mutating func key(_ name: String) { keys[keys.count - 1] = name }
    public mutating func string(_ value: String) { add(.string(value)) }
    public mutating func number(_ value: Double) { add(.number(value)) }
    public mutating func bool(_ flag: Bool) { add(.bool(flag)) }
    public mutating func null() { add(.null) }
    public mutating func value(_ value: JSONValue) { add(value) }
}
