import TrackerNetwork
import TrackerModel
/// What to ask Airtable for when listing: a formula, an order and a cap, all applied on the server.
public struct ListQuery: Equatable, Sendable {
    public enum Direction: String, Sendable { case asc, desc }

    var filterByFormula: String?
    public var sort: [(field: String, direction: Direction)]
    public var maxRecords: Int?
    var pageSize: Int
    /// The fields to fetch; nil for all of them. Only fields known to exist may be named: Airtable refuses the whole
    /// request for one the table lacks.
    public var fields: [String]?
    /// A view whose filters and order Airtable applies first (`view=`); the formula narrows it further.
    public var view: String?
    /// The formula's meaning on a record tracker holds: with it, a face's copy of the table may answer instead.
    public var keeps: Keeping?

    /// A predicate on the records of the table listed.
    public enum Keeping: Sendable {
        case projects(@Sendable (Project) -> Bool)
        case tasks(@Sendable (ProjectTask) -> Bool)
    }

    /// Whether a copy can answer: a filter it can apply, and nothing only Airtable knows (a view, an order).
    var isAnsweredByCopy: Bool { keeps != nil && view == nil && sort.isEmpty }

    public init(
        filterByFormula: String? = nil, sort: [(field: String, direction: Direction)] = [], maxRecords: Int? = nil,
        pageSize: Int = 100, fields: [String]? = nil, view: String? = nil
    ) {
        self.filterByFormula = filterByFormula
        self.sort = sort
        self.maxRecords = maxRecords
        self.pageSize = pageSize
        self.fields = fields
        self.view = view
    }

    public static func == (lhs: ListQuery, rhs: ListQuery) -> Bool {
        lhs.filterByFormula == rhs.filterByFormula && lhs.maxRecords == rhs.maxRecords && lhs.pageSize == rhs.pageSize
            && lhs.sort.map(\.field) == rhs.sort.map(\.field) && lhs.sort.map(\.direction) == rhs.sort.map(\.direction)
            && lhs.fields == rhs.fields && lhs.view == rhs.view
    }

    /// The query for the records `selection` picks, its predicate beside its formula.
    public static func picking(_ selection: Selection<Project>, fields: [String]? = nil) -> ListQuery {
        var query = ListQuery(filterByFormula: selection.formula, fields: fields)
        query.keeps = .projects(selection.keeps)
        return query
    }

    /// The query for the tasks `selection` picks.
    public static func picking(_ selection: Selection<ProjectTask>) -> ListQuery {
        var query = ListQuery(filterByFormula: selection.formula)
        query.keeps = .tasks(selection.keeps)
        return query
    }

    /// The GET query parameters in Airtable's bracket style, with the page cursor when there is one.
    func queryItems(offset: String?) -> [(String, String)] {
        var items: [(String, String)] = [("pageSize", String(pageSize))]
        if let maxRecords { items.append(("maxRecords", String(maxRecords))) }
        if let view { items.append(("view", view)) }
        if let filterByFormula { items.append(("filterByFormula", filterByFormula)) }
        for (index, rule) in sort.enumerated() {
            items.append(("sort[\(index)][field]", rule.field))
            items.append(("sort[\(index)][direction]", rule.direction.rawValue))
        }
        for field in fields ?? [] { items.append(("fields[]", field)) }
        if let offset { items.append(("offset", offset)) }
        return items
    }

    /// The same parameters as a `POST …/listRecords` body, for queries too long for a URL.
    public func body(offset: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [("pageSize", .number(Double(pageSize)))]
        if let maxRecords { members.append(("maxRecords", .number(Double(maxRecords)))) }
        if let view { members.append(("view", .string(view))) }
        if let filterByFormula { members.append(("filterByFormula", .string(filterByFormula))) }
        if !sort.isEmpty {
            members.append(
                (
                    "sort",
                    .array(
                        sort.map {
                            .object([("field", .string($0.field)), ("direction", .string($0.direction.rawValue))])
                        })
                )
            )
        }
        if let fields { members.append(("fields", .array(fields.map(JSONValue.string)))) }
        if let offset { members.append(("offset", .string(offset))) }
        return .object(members)
    }
}
