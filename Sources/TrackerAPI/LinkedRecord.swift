import TrackerNetwork
import TrackerModel
/// A record of another table (a client), by id and the text of its primary field.
public struct LinkedRecord: Equatable, Sendable {
    public var id: String
    public var name: String?

    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }
}
