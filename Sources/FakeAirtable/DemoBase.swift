#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

extension FakeAirtable {
    /// The base `tracker demo` serves: the template's 16 recorded projects, their dates moved by whole weeks so the
    /// latest is due three weeks after `today` (some overdue, some due soon, some done), named clients, a few comments,
    /// the template's views, and the token's user one of the collaborators, so "my projects" has some.
    public static func demo(today: String) -> (options: Options, records: [[String: Any]]) {
        var records = recordedProjects
        let dues = records.compactMap {
            (($0["fields"] as? [String: Any])?["Due date"] as? String).flatMap(FakeDates.dayNumber)
        }
        let todayNumber = FakeDates.dayNumber(today) ?? 0
        let shift = ((todayNumber + 21 - (dues.max() ?? todayNumber)) / 7) * 7
        for index in records.indices {
            guard var fields = records[index]["fields"] as? [String: Any] else { continue }
            // The recorded mock-ups' bytes are not in the recording; the demo's own small images stand in for them.
            fields["Project images"] = nil
            for name in ["Due date", "Kickoff date"] {
                if let day = (fields[name] as? String).flatMap(FakeDates.dayNumber) {
                    fields[name] = FakeDates.string(dayNumber: day + shift)
                }
            }
            records[index]["fields"] = fields
        }
        let now = Date().timeIntervalSince1970
        func time(hoursAgo hours: Double) -> String { ISOInstant.text(Date(timeIntervalSince1970: now - hours * 3600)) }
        // Every section of `report` has something: one project due in three days, one finished yesterday, one
        // created two days ago (the shift alone leaves them to chance).
        for index in records.indices {
            guard var fields = records[index]["fields"] as? [String: Any] else { continue }
            switch fields["Name"] as? String {
            case "Coffee packaging": fields["Due date"] = FakeDates.string(dayNumber: todayNumber + 3)
            case "CubePad": records[index]["lastModifiedTimes"] = ["Complete": time(hoursAgo: 26)]
            case "Lemon headband": records[index]["createdTime"] = time(hoursAgo: 50)
            default: break
            }
            records[index]["fields"] = fields
        }
        var options = Options()
        options.clientNames = [
            "Acme Robotics", "Blue Door Coffee", "Cedar Health", "Dune Studio", "Evergreen Bank", "Fjord Audio",
            "Granite Labs", "Harbor Foods", "Iris Optics", "Juniper Schools", "Kestrel Air", "Lumen Lighting",
            "Meridian Travel", "Nimbus Cloud",
        ]
        var people: [[String: Any]] = []
        for record in records {
            guard let lead = (record["fields"] as? [String: Any])?["Project lead"] as? [String: Any],
                let id = lead["id"] as? String, !people.contains(where: { $0["id"] as? String == id })
            else { continue }
            people.append(lead)
        }
        func person(_ index: Int) -> (id: String, name: String, email: String)? {
            guard people.indices.contains(index), let id = people[index]["id"] as? String else { return nil }
            return (id, people[index]["name"] as? String ?? "", people[index]["email"] as? String ?? "")
        }
        if let me = person(0) { options.user = (me.id, me.email) }
        var comments: [String: [FakeComment]] = [:]
        let said: [(record: Int, author: Int, hours: Double, text: (String) -> String)] = [
            (0, 1, 50, { _ in "Kickoff notes are in the shared folder." }),
            (0, 0, 26, { _ in "Thanks! First sketches by Friday." }),
            (0, 2, 3, { mention in "Can we move the review? \(mention) is out Thursday." }),
            (1, 0, 8, { _ in "Waiting on the client's feedback on the second round." }),
        ]
        for line in said {
            guard records.indices.contains(line.record), let id = records[line.record]["id"] as? String,
                let author = person(line.author)
            else { continue }
            let mention = person(1).map { "@[\($0.id)]" } ?? "someone"
            let number = (comments[id]?.count ?? 0) + 1
            comments[id, default: []].append(
                FakeComment(
                    id: "comDEMO\(line.record)\(number)00000000", author: author, text: line.text(mention),
                    createdTime: time(hoursAgo: line.hours)))
        }
        options.comments = comments
        options.tasks = demoTasks(me: person(0)?.email, others: (1..<4).compactMap { person($0)?.email }, now: time)
        return (options, records)
    }

    /// The demo's tasks: the work inside its open projects, some the token's user's (one put on them yesterday, so
    /// `status` has something new), some done, the recorded projects' own task ids among them.
    private static func demoTasks(me: String?, others: [String], now time: (Double) -> String) -> [FakeTaskSpec] {
        let (cmca, bike, coffee, lemon, huntington, locax) = (
            "rec3g0Xxmw2rw3scs", "rec6DyWEAw6ZOWrb4", "recPsjO1tkEyBCF7y", "recZ2UzQoJcTTXjws", "recbCffx3vobfga3D",
            "recv9K4cnpAB0VoMz"
        )
        let other = { (index: Int) in others.isEmpty ? me : others[index % others.count] }
        return [
            FakeTaskSpec(
                id: "rec4V1o57X1xFvUFQ", "Dieline and proofs", projects: [coffee], estimate: 2.5, assignee: me),
            FakeTaskSpec("Print vendor quotes", projects: [coffee], estimate: 1, completed: true, assignee: other(0)),
            FakeTaskSpec("Color check with the client", projects: [coffee], estimate: 0.5, assignee: other(1)),
            FakeTaskSpec("Kickoff meeting", projects: [cmca], estimate: 0.5, completed: true, assignee: me),
            FakeTaskSpec("Logo sketches", projects: [cmca], estimate: 3, assignee: me, notes: "Three directions."),
            FakeTaskSpec("Brand guidelines", projects: [cmca], estimate: 4, assignee: other(2)),
            FakeTaskSpec("Frame geometry review", projects: [bike], estimate: 1.5, assignee: other(0)),
            FakeTaskSpec("Saddle prototype", projects: [bike], estimate: 2, assignee: me, createdTime: time(20)),
            FakeTaskSpec("Kickoff meeting", projects: [lemon], estimate: 0.5, completed: true, assignee: other(1)),
            FakeTaskSpec("Fabric samples", projects: [lemon], estimate: 1, assignee: other(2)),
            FakeTaskSpec("Signage mock-ups", projects: [huntington], estimate: 2, assignee: other(0)),
            FakeTaskSpec(
                id: "recIBtCuYwODyDzVt", "Keyboard layout", projects: [locax], estimate: 1, completed: true,
                assignee: other(1)),
            FakeTaskSpec(
                id: "recBPVLHTFhWX99Zp", "Hinge prototype", projects: [locax], estimate: 3, completed: true,
                assignee: me),
        ]
    }
}
