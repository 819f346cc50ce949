/// How a token may be shown: never whole.
public enum TokenMask {
    /// Shows only a token's first three and last four characters: `pat…1234`.
    public static func masked(_ token: String) -> String {
        token.count < 12 ? "…" : "\(token.prefix(3))…\(token.suffix(4))"
    }
}
