import TrackerModel

extension ReportDocument {
    /// One complete HTML document: styles inline (mail clients drop style sheets), no scripts, no external resources,
    /// every text from Airtable escaped.
    package func html() -> String {
        let font = "font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif"
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<title>\(Self.escapedHTML(title))</title>\n</head>\n"
        out += "<body style=\"\(font);color:#1f2328;margin:16px\">\n"
        out += "<h1 style=\"font-size:20px;margin:0 0 4px\">\(Self.escapedHTML(title))</h1>\n"
        out += "<p style=\"color:#59636e;margin:0 0 16px\">The last and next \(digest.days) days.</p>\n"
        if digest.isEmpty { return out + "<p>\(Self.escapedHTML(nothingLine))</p>\n</body>\n</html>\n" }
        let cell = "padding:2px 12px 2px 0;vertical-align:top"
        // A row is some 250 bytes: sized once, not doubled and copied as it grows (8 MB for 30,000 projects).
        out.reserveCapacity(out.utf8.count + rows * 300 + 1024)
        for (section, groups) in grouped {
            let colour = section == .overdue ? "#cf222e" : "#1f2328"
            out += "<h2 style=\"font-size:16px;margin:16px 0 4px;color:\(colour)\">"
            out += "\(section.title) (\(digest[section].count))</h2>\n"
            for group in groups {
                if grouping != .none {
                    out += "<h3 style=\"font-size:14px;margin:8px 0 2px\">"
                    out += "\(Self.escapedHTML(TextCells.folded(group.name))) (\(group.projects.count))</h3>\n"
                }
                out += "<table style=\"border-collapse:collapse;font-size:14px\">\n"
                // A row's markup made once, its values appended between: interpolating each row's strings made
                // and copied them again, 30,000 times.
                let (name, due, lead) = (
                    "<tr><td style=\"\(cell)\">", "</td><td style=\"\(cell);white-space:nowrap;color:\(colour)\">",
                    "</td><td style=\"\(cell)\">"
                )
                // A lead grouped under their own name is not repeated on every row.
                let showsLead = grouping != .lead
                group.projects.forEach { project in
                    out += name
                    if let address {
                        out += "<a href=\"" + Self.escapedHTML(address(project.id)) + "\" style=\"color:#0969da\">"
                        out += Self.escapedHTML(Self.name(project)) + "</a>"
                    } else {
                        out += Self.escapedHTML(Self.name(project))
                    }
                    out += due
                    out += project.due?.description ?? "no due date"
                    if showsLead {
                        out += lead
                        out += Self.escapedHTML(Self.leadName(project))
                    }
                    out += "</td></tr>\n"
                }
                out += "</table>\n"
            }
        }
        return out + tasksHTML() + "</body>\n</html>\n"
    }

    /// Text as HTML character data or an attribute value: `&`, `<`, `>` and both quotes as references.
    package static func escapedHTML(_ text: String) -> String {
        // Most names need nothing; bytes, not grapheme clusters, tell (a report can hold thousands of them).
        guard text.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
