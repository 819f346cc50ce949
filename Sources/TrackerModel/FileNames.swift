/// File names that came from Airtable, made safe to create in a directory the user chose: anyone who can edit the base
/// names its attachments, so a name is never a path, never hidden, never an option and never a terminal control.
public enum FileNames {
    /// `name` when it is a plain file name, else a safe one: path separators and control characters become `_`, a
    /// leading `.` or `-` becomes `_`, and a name left empty (or `.`/`..`) becomes `attachment` followed by the id's
    /// last characters. Names are kept to 200 bytes, their extension kept.
    public static func safe(_ name: String, id: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            let unsafe = scalar == "/" || scalar == "\\" || scalar == "\u{0}" || ControlCharacters.isControl(scalar)
            scalars.append(unsafe ? "_" : scalar)
        }
        var result = String(scalars).trimmingWhitespace()
        if result.allSatisfy({ $0 == "." || $0 == "_" }) { result = "" }
        while let first = result.unicodeScalars.first, first == "." || first == "-" {
            result = "_" + String(result.unicodeScalars.dropFirst())
        }
        if result.isEmpty { return "attachment-" + String(id.suffix(6)) }
        return shortened(result, to: 200)
    }

    /// `name` with ` (n)` before its extension: `a.png` → `a (2).png`.
    public static func numbered(_ name: String, _ number: Int) -> String {
        let (stem, ext) = split(name)
        return "\(stem) (\(number))\(ext)"
    }

    /// The base name and the extension with its dot (`.png`); an extension is at most 16 characters with no space.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = String(name[dot...])
        guard ext.count <= 16, !ext.contains(" ") else { return (name, "") }
        return (String(name[..<dot]), ext)
    }

    /// At most `limit` UTF-8 bytes, cut between characters, the extension kept (file systems allow 255 bytes).
    static func shortened(_ name: String, to limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        let (stem, ext) = split(name)
        var kept = ""
        for character in stem {
            if kept.utf8.count + String(character).utf8.count + ext.utf8.count > limit { break }
            kept.append(character)
        }
        return kept + ext
    }
}

/// The content type an upload declares, from the file's extension.
public enum ContentType {
    static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "bmp": "image/bmp",
        "ico": "image/x-icon", "avif": "image/avif", "pdf": "application/pdf", "txt": "text/plain",
        "md": "text/markdown", "csv": "text/csv", "json": "application/json", "html": "text/html",
        "zip": "application/zip", "mp4": "video/mp4", "mov": "video/quicktime", "mp3": "audio/mpeg",
        "psd": "image/vnd.adobe.photoshop", "ai": "application/postscript", "eps": "application/postscript",
        "sketch": "application/octet-stream", "fig": "application/octet-stream",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "key": "application/vnd.apple.keynote",
    ]

    /// The type for `filename`'s extension (any case), else `application/octet-stream`.
    public static func of(_ filename: String) -> String {
        guard let dot = filename.lastIndex(of: ".") else { return "application/octet-stream" }
        let ext = filename[filename.index(after: dot)...].lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }
}
