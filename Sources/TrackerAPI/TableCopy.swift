import TrackerModel

/// A record a copy can keep: known by its id.
public protocol CopiedRecord: Sendable {
    var id: String { get }
}

extension Project: CopiedRecord {}
extension ProjectTask: CopiedRecord {}

/// One table kept in memory, in the order Airtable listed it (records new to the copy go last), merged by id.
public struct TableCopy<Record: CopiedRecord>: Sendable {
    private var slots: [Record?] = []
    private var index: [String: Int] = [:]
    /// The server's time (ISO 8601) from which the next listing of changes reads: the time the last listing was sent,
    /// less the margin.
    public var mark: String?
    /// When the ids were last listed whole, on the local monotonic clock (the watch without a webhook).
    var idsListed: Double?

    public init() {}

    public var count: Int { index.count }

    /// The records, in order.
    public var records: [Record] { slots.compactMap { $0 } }

    public subscript(id: String) -> Record? { index[id].flatMap { slots[$0] } }

    public func contains(_ id: String) -> Bool { index[id] != nil }

    /// Everything the copy holds is replaced by a whole listing.
    public mutating func replaceAll(with records: [Record]) {
        slots = []
        index = [:]
        merge(records)
    }

    /// Records seen again replace the copy's in place; new ones go last.
    public mutating func merge(_ records: [Record]) {
        for record in records {
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
        slots = slots.filter { $0 != nil }
        index = [:]
        for (at, record) in slots.enumerated() { if let record { index[record.id] = at } }
    }
}
