import TrackerModel

/// A filter defined once: the formula sent to Airtable and the predicate that means the same on a record tracker
/// holds (a face's copy answers with the predicate; a one-shot command sends the formula).
public struct Selection<Record>: Sendable {
    /// `AND` of the terms; nil when nothing is filtered.
    public var formula: String?
    public var keeps: @Sendable (Record) -> Bool

    public init(formula: String?, keeps: @escaping @Sendable (Record) -> Bool) {
        self.formula = formula
        self.keeps = keeps
    }

    /// The predicate of no filter at all.
    public static var every: @Sendable (Record) -> Bool { { _ in true } }

    /// The predicate of `FALSE()`.
    static var never: @Sendable (Record) -> Bool { { _ in false } }

    /// Terms gathered in order, each a formula and its predicate; a term given twice counts once.
    struct Terms {
        private var formulas: [String] = []
        private var predicates: [@Sendable (Record) -> Bool] = []

        mutating func add(_ formula: String, _ predicate: @escaping @Sendable (Record) -> Bool) {
            guard !formulas.contains(formula) else { return }
            formulas.append(formula)
            predicates.append(predicate)
        }

        mutating func insertFirst(_ formula: String, _ predicate: @escaping @Sendable (Record) -> Bool) {
            guard !formulas.contains(formula) else { return }
            formulas.insert(formula, at: 0)
            predicates.insert(predicate, at: 0)
        }

        /// `--search`: `text` in the name or the notes (where the table has notes), case folded; the same for
        /// projects and tasks, which differ only in where their name and notes are.
        mutating func addSearch(
            _ text: String, name: String?, notes: String?,
            _ fieldsOf: @escaping @Sendable (Record) -> (String?, String?)
        ) {
            let needle = "LOWER(\(Formula.literal(text)))"
            let haystacks = [name, notes].compactMap { $0 }.map { "FIND(\(needle), LOWER(\(Formula.field($0))))" }
            let wanted = text.lowercased()
            let hasNotes = notes != nil
            add(Formula.any(haystacks)) { record in
                let (name, notes) = fieldsOf(record)
                return (name ?? "").lowercased().contains(wanted)
                    || (hasNotes && (notes ?? "").lowercased().contains(wanted))
            }
        }

        var selection: Selection {
            let all = predicates
            return Selection(
                formula: formulas.isEmpty ? nil : Formula.all(formulas),
                keeps: { record in all.allSatisfy { $0(record) } })
        }
    }
}
