import TrackerModel

extension Formula {
    /// `NOT(IS_BEFORE(CREATED_TIME(), 'since'))`: the record was created at `since` (ISO 8601, UTC) or later.
    public static func createdSince(_ since: String) -> String {
        "NOT(IS_BEFORE(CREATED_TIME(), \(literal(since))))"
    }

    /// The projects a digest of `days` days around `today` shows: overdue, due in the next `days`, completed since
    /// `since` (the completion field changed then or later, and is complete now) or created since `since`.
    ///
    /// Airtable keeps no completion time, so "done lately" asks `LAST_MODIFIED_TIME({completion field})`
    /// (docs/airtable-webhooks.md, "Change times"). Without a due or a completion field, the sections that need it
    /// match nothing.
    public static func digest(today: CalendarDate, days: Int, since: String, fields: FieldMap) -> String {
        let complete = fields.completion.map(isComplete)
        let open = complete.map { ["NOT(\($0))"] } ?? []
        let end = DueWithin(days: days, from: today).firstDayAfter
        var sections: [String] = []
        if let due = fields[.due].map(field) {
            let todayLiteral = literal(today.description)
            sections.append(all(open + [due, "IS_BEFORE(\(due), \(todayLiteral))"]))
            sections.append(
                all(
                    open + [
                        due, "NOT(IS_BEFORE(\(due), \(todayLiteral)))",
                        "IS_BEFORE(\(due), \(literal(end.description)))",
                    ]))
        }
        if let complete, let completion = fields.completion {
            let changed = "LAST_MODIFIED_TIME(\(field(completion.field)))"
            sections.append(all([complete, "NOT(IS_BEFORE(\(changed), \(literal(since))))"]))
        }
        sections.append(createdSince(since))
        return any(sections)
    }

    /// Open projects, and complete ones whose completion field changed at `since` or later: what `board` shows, its
    /// Done column holding only the recently done. Nil without a completion field (every project is open then).
    ///
    /// Airtable keeps no completion time; `LAST_MODIFIED_TIME({completion field})` is the closest it records, as for
    /// the digest (docs/airtable-webhooks.md, "Change times").
    public static func openOrDoneSince(_ since: String, fields: FieldMap) -> String? {
        guard let completion = fields.completion, let done = completedSince(since, fields: fields) else { return nil }
        return any(["NOT(\(isComplete(completion)))", done])
    }

    /// Complete projects whose completion field changed at `since` or later; nil without a completion field.
    public static func completedSince(_ since: String, fields: FieldMap) -> String? {
        guard let completion = fields.completion else { return nil }
        let changed = "LAST_MODIFIED_TIME(\(field(completion.field)))"
        return all([isComplete(completion), "NOT(IS_BEFORE(\(changed), \(literal(since))))"])
    }
}

extension Formula {
    /// The digest's projects (`digest`'s formula) with the predicate beside it; `completedLately` are the projects whose
    /// completion changed at `since` or later, which a copy knows from `BaseCopy.completedIDs` (no record carries it).
    public static func digestSelection(
        today: CalendarDate, days: Int, since: String, fields: FieldMap, completedLately: Set<String>
    ) -> Selection<Project> {
        let end = DueWithin(days: days, from: today).firstDayAfter
        let hasCompletion = fields.completion != nil
        let hasDue = fields[.due] != nil
        return Selection(formula: digest(today: today, days: days, since: since, fields: fields)) { project in
            let open = !project.isComplete
            if hasDue, open, let due = project.due, due < end { return true }
            if hasCompletion, project.isComplete, completedLately.contains(project.id) { return true }
            return project.createdTime >= since
        }
    }

    /// `status`'s projects: someone leads them or is on their team, and they are new since `since` or open and due by
    /// `last`.
    public static func statusSelection(since: String, last: CalendarDate, fields: FieldMap) -> Selection<Project> {
        var terms = Selection<Project>.Terms()
        let people = [fields[.lead], fields[.team]].compactMap { $0 }.map(field)
        if people.isEmpty {
            terms.add("FALSE()", Selection.never)
        } else {
            terms.add(any(people)) { $0.lead != nil || !$0.team.isEmpty }
        }
        var sections = [createdSince(since)]
        let hasDue = fields[.due] != nil
        if let due = fields[.due].map(field) {
            let open = fields.completion.map { ["NOT(\(isComplete($0)))"] } ?? []
            sections.append(all(open + [due, "NOT(IS_AFTER(\(due), \(literal(last.description))))"]))
        }
        terms.add(any(sections)) { project in
            project.createdTime >= since || (hasDue && !project.isComplete && project.due.map { !(last < $0) } == true)
        }
        return terms.selection
    }

    /// `status`'s tasks: assigned to someone, and open or new since `since`.
    public static func statusTaskSelection(since: String, fields: TaskFieldMap) -> Selection<ProjectTask> {
        var terms = Selection<ProjectTask>.Terms()
        if let assignee = fields[.assignee] {
            terms.add(field(assignee)) { $0.assignee != nil }
        } else {
            terms.add("FALSE()", Selection.never)
        }
        let complete = fields.completion.map { ["NOT(\(isComplete($0)))"] } ?? []
        let hasCompletion = fields.completion != nil
        terms.add(any(complete + [createdSince(since)])) { task in
            (hasCompletion && !task.isComplete) || task.createdTime >= since
        }
        return terms.selection
    }
}
