import Dispatch
import TrackerAPI
import TrackerModel
import TrackerSystem

/// One table of the team's copy as a reader loads it from a scan: each page decoded on every core at once, each record
/// put straight into its place in the table's order (a hash keeps none), and the copy's index built once at the end.
/// Records are moved, never copied: a copy of 150,000 records retains every string of each, one cache miss at a time.
struct TableLoad<Record: StoredRecord> {
    /// Order n's record at n - 1; a hole where a record was deleted.
    private var slots: [Record?]
    /// Records whose order has no free slot (added while the scan ran, beyond what the header foresaw, or returned
    /// again): they follow the others in their order, and an id found twice keeps its first place.
    private var later: [(order: Int, record: Record)] = []
    /// Each part's strings shared across pages: part n of every page uses pool n, one part at a time.
    private let pools: [StringPool]
    /// The first id whose value is not such a record.
    private(set) var junk: String?

    /// `highest`: the highest order the header has handed out (its `seq:` field); orders 1...highest get a slot each
    /// when that many is plausible for `expected` records (deletions leave holes; junk in a header costs no memory).
    init(expected: Int, highest: Int?, parts: Int = POSIX.processorCount) {
        let highest = highest ?? 0
        let plausible = highest > 0 && highest <= 4 * max(expected, 0) + 4096
        slots = Array(repeating: nil, count: plausible ? highest : 0)
        pools = (0..<max(1, parts)).map { _ in StringPool() }
    }

    /// Decodes one page of the scan and puts its records in place.
    mutating func add(_ page: [(id: String, value: String)]) {
        var parts = Self.decode(page, pools: pools)
        // Taken from the back, so each part's array is left uniquely held and its records are moved out of it.
        parts.reverse()
        while var part = parts.popLast() {
            junk = junk ?? part.junk
            part.records.reverse()
            while let (order, record) = part.records.popLast() { place(record, order) }
        }
    }

    private mutating func place(_ record: consuming Record, _ order: Int) {
        if order >= 1, order <= slots.count, slots[order - 1] == nil {
            slots[order - 1] = record
        } else {
            later.append((order, record))
        }
    }

    /// The table: every record in its order, each id once.
    consuming func table() -> TableCopy<Record> {
        if !later.isEmpty {
            // Sorted up (stable: a record returned twice keeps its first place) and turned round, so each is moved off
            // the end in order.
            later.sort { $0.order < $1.order }
            later.reverse()
            slots.reserveCapacity(slots.count + later.count)
            while let (_, record) = later.popLast() { slots.append(record) }
        }
        return TableCopy(slots: slots)
    }

    /// One part of a page decoded: its records with their orders, and the first id that held junk.
    struct Decoded: Sendable {
        var records: [(order: Int, record: Record)] = []
        var junk: String?
    }

    /// A page decoded in as many parts as there are pools, the parts at once on the machine's cores; a page too small
    /// to be worth a thread is decoded here.
    static func decode(_ page: [(id: String, value: String)], pools: [StringPool]) -> [Decoded] {
        let parts = min(pools.count, max(1, page.count / 256))
        guard parts > 1 else { return [decode(page[...], strings: pools[0])] }
        let size = (page.count + parts - 1) / parts
        let results = Locked<[Decoded]>(Array(repeating: Decoded(), count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let decoded = decode(page[part * size..<min(page.count, (part + 1) * size)], strings: pools[part])
            results.withLock { $0[part] = decoded }
        }
        return results.withLock { all in
            defer { all = [] }
            return all
        }
    }

    private static func decode(_ part: ArraySlice<(id: String, value: String)>, strings: StringPool) -> Decoded {
        var decoded = Decoded()
        decoded.records.reserveCapacity(part.count)
        for (id, value) in part {
            guard var stored = TeamCopyStore.record(value, as: Record.self), stored.record.id == id else {
                decoded.junk = decoded.junk ?? id
                continue
            }
            stored.record.share(&strings.strings)
            decoded.records.append(stored)
        }
        return decoded
    }
}

/// The strings one part of every page shares (people, linked ids): used by one thread at a time, the part's.
final class StringPool: @unchecked Sendable {
    var strings = SharedStrings()
}
