/// The person's editor, as a face offers it to `edit`: a record's form handed over, what was saved handed back, and
/// what was typed kept somewhere when it cannot be applied.
package struct FormEditor: Sendable {
    /// Whether the person sees the form again with what is wrong at its top (a terminal); elsewhere a problem in the
    /// form ends the edit, as nobody could fix it.
    package var canFix: Bool
    /// Hands `form` for the record `id` to the editor and returns what was saved (`opened` is the form as first
    /// written: an editor that fails having changed nothing leaves nothing to keep).
    package var edit: @Sendable (_ form: String, _ id: String, _ opened: String) throws -> String
    /// Keeps `text`, typed in the form of the record `id`, and says where.
    package var keep: @Sendable (_ text: String, _ id: String) -> String

    /// Each capability given.
    package init(
        canFix: Bool, edit: @escaping @Sendable (String, String, String) throws -> String,
        keep: @escaping @Sendable (String, String) -> String
    ) {
        (self.canFix, self.edit, self.keep) = (canFix, edit, keep)
    }
}
