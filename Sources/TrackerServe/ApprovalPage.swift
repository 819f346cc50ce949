#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerMCP
import TrackerModel
import TrackerOperations

/// What the approval page does as the person signed in on it: look at one of their approvals, make it, drop it.
/// Given by the launch, which runs each as the operation every face runs (`ApprovalStatus`, `Approve`, `Reject`).
package struct ApprovalActions: Sendable {
    package var look: @Sendable (_ id: String, _ person: Person) async throws -> ApprovalOutcome
    package var approve: @Sendable (_ id: String, _ person: Person) async throws -> ApprovalOutcome
    package var reject: @Sendable (_ id: String, _ person: Person) async throws -> ApprovalOutcome

    package init(
        look: @escaping @Sendable (String, Person) async throws -> ApprovalOutcome,
        approve: @escaping @Sendable (String, Person) async throws -> ApprovalOutcome,
        reject: @escaping @Sendable (String, Person) async throws -> ApprovalOutcome
    ) {
        (self.look, self.approve, self.reject) = (look, approve, reject)
    }
}

extension ServeFace {
    /// `/approve/<id>`: the person signed in as on `/account` (else on to Airtable's sign-in and back here) sees the
    /// approval's diff and approves or rejects it. Only the person it is for: another is refused (403), whatever link
    /// they hold. Approve reads the records again; a change since is shown and asked again, never written over.
    func approvalPage(_ request: ServedRequest, _ record: inout LogRecord) -> HTTPAction {
        guard request.method == "GET" || request.method == "POST" else {
            return MCPOverHTTP.plain(405, "Method Not Allowed")
        }
        guard let actions = host.approvals else { return MCPOverHTTP.plain(404, "Not Found: no approvals here") }
        let id = String(request.path.dropFirst("/approve/".count))
        guard JournalEntry.isApprovalID(id) else { return page(404, ApprovalPages.message("No such approval.")) }
        let session = cookie(request, named: host.signIn.sessionCookieName)
        let signedIn = Blocking.wait { [host] in await host.signIn.pagePerson(session: session) }
        guard let (person, csrf) = signedIn else {
            // A form posted without a live session changes nothing: the person signs in and looks again.
            return browser(host.signIn.signIn(returningTo: "/approve/" + id))
        }
        record.user = person.userID
        let form = FormEncoding.pairs(request.body)
        if request.method == "POST" {
            guard let sent = FormEncoding.single("csrf", in: form), Digest.constantTimeEqual(sent, csrf) else {
                return page(403, ApprovalPages.message("This page has expired: open the approval's link again."))
            }
        }
        let action = request.method == "POST" ? FormEncoding.single("action", in: form) : nil
        let outcome = Blocking.wait { () async -> Result<(ApprovalOutcome, String?), AppError> in
            do {
                switch action {
                case "approve": return .success((try await actions.approve(id, person), "approved"))
                case "reject": return .success((try await actions.reject(id, person), "rejected"))
                default: return .success((try await actions.look(id, person), nil))
                }
            } catch AppError.approvalConflict {
                // Shown again as the records are now, to be looked at and approved once more.
                do { return .success((try await actions.look(id, person), "conflicted")) } catch {
                    return .failure(error as? AppError ?? .output("\(error)"))
                }
            } catch {
                return .failure(error as? AppError ?? .output("\(error)"))
            }
        }
        switch outcome {
        case .success(let (found, done)):
            return page(200, ApprovalPages.approval(found, csrf: csrf, done: done, person: person.userID))
        case .failure(.notFound):
            return page(
                403, ApprovalPages.message("No approval of yours has this id: only the person it waits for may see it.")
            )
        case .failure(let error):
            let text = StandardErrorText.safe(error.message, concealing: [person.token])
            return page(error.exitCode == .notFound ? 404 : 502, ApprovalPages.message("Nothing was written: \(text)"))
        }
    }

    private func page(_ status: Int, _ html: String) -> HTTPAction {
        .respond(status: status, headers: SignInPages.headers, body: Data(html.utf8))
    }
}

/// The approval page's HTML: the diff as a table (a field's value now struck through, the new one beside it; a
/// deletion's whole row and what links to it), where the approval stands, and Approve and Reject.
enum ApprovalPages {
    static func approval(_ outcome: ApprovalOutcome, csrf: String, done: String?, person: String) -> String {
        let entry = outcome.entry
        let status = outcome.status
        let rows = entry.diffRows.map { row in
            let before = row.before.map { "<del>\(SignInPages.escaped($0))</del>" } ?? "<span class=none>none</span>"
            let after = row.after.map { "<ins>\(SignInPages.escaped($0))</ins>" } ?? "<span class=gone>deleted</span>"
            return "<tr><td>\(SignInPages.escaped(row.record))</td><td>\(SignInPages.escaped(row.field))</td>"
                + "<td>\(before)</td><td>\(after)</td></tr>"
        }.joined(separator: "\n")
        let said: String =
            switch done {
            case "approved":
                "Made. It is journaled as \(SignInPages.escaped(entry.approval?.applied ?? "an entry")): 'tracker undo' takes it back."
            case "rejected": "Rejected: nothing was written."
            case "conflicted":
                "Nothing was written: the records changed since the plan. Look again, then approve or reject."
            default: ""
            }
        let conflicts =
            status == .conflicted
            ? "<ul id=\"conflicts\">"
                + (entry.approval?.conflicts ?? []).map { "<li>\(SignInPages.escaped($0))</li>" }.joined() + "</ul>"
            : ""
        let waiting = status == .pending || status == .conflicted
        let buttons =
            waiting
            ? """
            <form method="post" action="/approve/\(SignInPages.escaped(entry.id))">
            <input type="hidden" name="csrf" value="\(SignInPages.escaped(csrf))">
            <button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="reject">Reject</button>
            </form>
            """ : ""
        let who = entry.client.map { " asked by <strong id=\"client\">\(SignInPages.escaped($0))</strong>" } ?? ""
        return SignInPages.page(
            title: "Approve \(SignInPages.escaped(entry.command))?",
            body: """
                <h1>\(SignInPages.escaped(entry.command))\(who)</h1>
                <p>For <strong id="person">\(SignInPages.escaped(person))</strong>: \(entry.recordCount) record\(entry.recordCount == 1 ? "" : "s"); it waits until \(SignInPages.stamp(entry.approval?.expires ?? 0)).
                Status: <strong id="status">\(status.rawValue)</strong></p>
                <p id="said">\(said)</p>
                \(conflicts)
                <style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}del{color:#a00}ins{color:#060;text-decoration:none}form{margin-top:1em}</style>
                <table id="diff"><tr><th>Record</th><th>Field</th><th>Now</th><th>After</th></tr>
                \(rows)
                </table>
                \(buttons)
                """)
    }

    static func message(_ text: String) -> String {
        SignInPages.page(
            title: "Approval", body: "<h1>Approval</h1>\n<p id=\"error\">\(SignInPages.escaped(text))</p>")
    }
}
