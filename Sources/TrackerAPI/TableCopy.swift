import TrackerModel

/// A record a copy can keep: known by its id.
public protocol CopiedRecord: Sendable {
    var id: String { get }
    /// Makes the strings many records repeat (people, links) share one copy each.
    mutating func share(_ strings: inout SharedStrings)
}

/// One copy of each string seen: a person's id, name and email, or a linked record's id, held once however many
/// records name it (100,000 tasks assigned to a dozen people hold a dozen).
public struct SharedStrings: Sendable {
    private var pool = Set<String>()

    public init() {}

    public mutating func callAsFunction(_ text: String) -> String {
        if let index = pool.firstIndex(of: text) { return pool[index] }
        pool.insert(text)
        return text
    }

    /// Shares a person's id, name and email, in place.
    mutating func share(_ person: inout Collaborator) {
        if let id = person.id { person.id = self(id) }
        if let name = person.name { person.name = self(name) }
        if let email = person.email { person.email = self(email) }
    }
}

// Each record shares in place: a `map` would make a new array for every record of a load of 150,000.
extension Project: CopiedRecord {
    public mutating func share(_ strings: inout SharedStrings) {
        if lead != nil { strings.share(&lead!) }
        for index in team.indices { strings.share(&team[index]) }
        for index in clients.indices { clients[index] = strings(clients[index]) }
        if let category { self.category = strings(category) }
    }
}

extension RawRecord: CopiedRecord {
    public mutating func share(_ strings: inout SharedStrings) {}
}

extension ProjectTask: CopiedRecord {
    public mutating func share(_ strings: inout SharedStrings) {
        if assignee != nil { strings.share(&assignee!) }
        for index in projects.indices { projects[index] = strings(projects[index]) }
    }
}

/// One table kept in memory, in the order Airtable listed it (records new to the copy go last), merged by id. The
/// four kinds of copy: a `TableCopy` is one table's records; a `BaseCopy` keeps a base's tables (a `TableCopy` each)
/// up to date with what changed; `BaseCopies` holds a face's `BaseCopy` for each base and layout; a `TableSnapshot`
/// is what `changes` saw last, on disk, to compare with.
public struct TableCopy<Record: CopiedRecord>: Sendable {
    private var slots: [Record?] = []
    private var strings = SharedStrings()
    private var index: [String: Int] = [:]
    /// The server's time (ISO 8601) from which the next listing of changes reads: the time the last listing was sent,
    /// less the margin.
    public var mark: String?
    /// When the ids were last listed whole, on the local monotonic clock (the watch without a webhook).
    var idsListed: Double?

    public init() {}

    /// A copy of records already in the table's order, with holes where the order has none (a load's): the index is
    /// built once, and an id found again is left out, its first place kept.
    package init(slots: [Record?]) {
        self.slots = slots
        index.reserveCapacity(slots.count)
        for at in self.slots.indices {
            guard let id = self.slots[at]?.id else { continue }
            if let first = index.updateValue(at, forKey: id) {
                index[id] = first
                self.slots[at] = nil
            }
        }
        if self.slots.count > 64 && index.count < self.slots.count / 2 { compact() }
    }

    public var count: Int { index.count }

    /// The records, in order.
    public var records: [Record] { slots.compactMap { $0 } }

    /// The records `keeps` picks, in order.
    public func records(where keeps: (Record) -> Bool) -> [Record] {
        var picked: [Record] = []
        for case let record? in slots where keeps(record) { picked.append(record) }
        return picked
    }

    /// The records `keeps` picks, in order, `size` a page (the first `limit` of them when given): pages made from the
    /// copy itself, with no array of the whole table between.
    public func pages(where keeps: (Record) -> Bool, limit: Int? = nil, size: Int) -> [[Record]] {
        var pages: [[Record]] = []
        var page: [Record] = []
        var left = limit ?? .max
        for case let record? in slots where left > 0 && keeps(record) {
            if page.isEmpty { page.reserveCapacity(size) }
            page.append(record)
            left -= 1
            if page.count == size {
                pages.append(page)
                page = []
            }
        }
        if !page.isEmpty { pages.append(page) }
        return pages
    }

    /// The records with these ids, in their order, each once; ids the copy lacks are left out.
    public func records(ids: [String]) -> [Record] {
        var seen = Set<String>()
        return ids.compactMap { seen.insert($0).inserted ? self[$0] : nil }
    }

    /// Each record, in order.
    public func forEach(_ body: (Record) -> Void) { for case let record? in slots { body(record) } }

    public subscript(id: String) -> Record? { index[id].flatMap { slots[$0] } }

    public func contains(_ id: String) -> Bool { index[id] != nil }

    /// Records seen again replace the copy's in place; new ones go last.
    public mutating func merge(_ records: [Record]) {
        for var record in records {
            record.share(&strings)
            if let at = index[record.id] {
                slots[at] = record
            } else {
                index[record.id] = slots.count
                slots.append(record)
            }
        }
    }

    /// Forgets these records.
    public mutating func remove<Ids: Sequence>(_ ids: Ids) where Ids.Element == String {
        for id in ids {
            guard let at = index.removeValue(forKey: id) else { continue }
            slots[at] = nil
        }
        // The holes are closed once they are half of the slots, so removing stays cheap and memory bounded.
        if slots.count > 64 && index.count < slots.count / 2 { compact() }
    }

    /// The ids of the copy not in `listed`: the records deleted since.
    public func ids(notIn listed: Set<String>) -> [String] {
        index.keys.filter { !listed.contains($0) }
    }

    private mutating func compact() {
        // In place: the records are moved, not copied (a copy of 150,000 retains every string of each).
        slots.removeAll { $0 == nil }
        index = [:]
        index.reserveCapacity(slots.count)
        for (at, record) in slots.enumerated() { if let record { index[record.id] = at } }
    }
}
