#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// The pages a person sees while signing in: plain HTML, every text from outside escaped, no script.
enum SignInPages {
    /// The headers every sign-in page carries: not framed (clickjacking), no script, nothing cached, no referrer.
    static let headers = [
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy":
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
        "X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    ]

    /// The consent page: which client asks (its name, which proves nothing, and the host it returns to), what it may
    /// do, on which base; Allow and Deny post the page's CSRF token back.
    static func consent(
        client: String, redirectHost: String, scope: String, base: String, request: String, csrf: String
    )
        -> String
    {
        let abilities =
            scope.contains("tracker:write")
            ? "read and change the projects, tasks and comments of" : "read the projects, tasks and comments of"
        return page(
            title: "Allow \(escaped(client))?",
            body: """
                <h1>Allow <strong id="client-name">\(escaped(client))</strong> to use tracker?</h1>
                <p>It will return to <strong id="redirect-host">\(escaped(redirectHost))</strong>. A client's name proves
                nothing: allow only if you started this from that client.</p>
                <p>If you allow, it may <strong id="abilities">\(abilities)</strong> the base
                <strong>\(escaped(base))</strong>, as you. Next, Airtable asks you to grant tracker access.</p>
                <form method="post" action="/authorize">
                <input type="hidden" name="request" value="\(escaped(request))">
                <input type="hidden" name="csrf" value="\(escaped(csrf))">
                <button type="submit" name="decision" value="allow">Allow</button>
                <button type="submit" name="decision" value="deny">Deny</button>
                </form>
                """)
    }

    /// The person's own page: their grants, each with Revoke, and New token (the token shown once when just made).
    static func account(person: String, grants: [GrantSummary], csrf: String, newToken: String?, mcpURL: String)
        -> String
    {
        let rows = grants.map { grant in
            """
            <tr><td>\(escaped(grant.clientName))</td><td>\(stamp(grant.created))</td><td>\(stamp(grant.lastUsed))</td>
            <td><form method="post" action="/account"><input type="hidden" name="csrf" value="\(escaped(csrf))">
            <input type="hidden" name="grant" value="\(escaped(grant.id))">
            <button type="submit" name="action" value="revoke">Revoke</button></form></td></tr>
            """
        }.joined(separator: "\n")
        let made =
            newToken.map {
                """
                <p>Your new token, shown this once (keep it as you would a password; it acts as you):</p>
                <p><output id="new-token">\(escaped($0))</output></p>
                <p>Give it to the agent as <code>Authorization: Bearer …</code> for <code>\(escaped(mcpURL))</code>.</p>
                """
            } ?? ""
        return page(
            title: "tracker: your sign-ins",
            body: """
                <h1>Signed in as <span id="person">\(escaped(person))</span></h1>
                \(made)
                <h2>Your grants</h2>
                \(grants.isEmpty ? "<p>None.</p>" : "<table><tr><th>Client</th><th>Made</th><th>Last used</th><th></th></tr>\n\(rows)\n</table>")
                <h2>A token for an agent</h2>
                <p>For a script or an agent that cannot open a browser: Airtable asks you once more, then the token is shown here.</p>
                <form method="post" action="/account"><input type="hidden" name="csrf" value="\(escaped(csrf))">
                <label>Name <input name="name" maxlength="200" value="An agent's token"></label>
                <button type="submit" name="action" value="new-token">New token</button></form>
                """)
    }

    static func stamp(_ seconds: Double) -> String {
        ISOInstant.secondsText(Date(timeIntervalSince1970: seconds))
    }

    /// A page that says what went wrong and what to do, and leads nowhere.
    static func error(_ text: String) -> String {
        page(title: "Sign-in stopped", body: "<h1>Sign-in stopped</h1>\n<p id=\"error\">\(escaped(text))</p>")
    }

    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(title)</title>
        <style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em}button{font:inherit;padding:.4em 1.2em;margin-right:.6em}</style>
        </head><body>
        \(body)
        </body></html>

        """
    }

    /// `text` safe in HTML text and in a quoted attribute: the report's own escaping, one rule for every page.
    static func escaped(_ text: String) -> String { ReportDocument.escapedHTML(text) }
}
