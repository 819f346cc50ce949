import TrackerModel

/// One finding of `tracker doctor`.
package struct DoctorCheck: Sendable {
    package var name: String
    /// The failure, when the check failed.
    package var error: AppError?
    package var detail: String
    /// Lines that explain the finding (the table's fields, a suggested mapping).
    package var notes: [String] = []
    /// Whether the check could not run (which is not a failure).
    package var isSkipped = false

    package var ok: Bool { error == nil }

    package var label: String { isSkipped ? "skipped" : ok ? "ok" : "failed" }

    /// A check that could not run, and why.
    package static func skipped(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, detail: detail, isSkipped: true)
    }

    /// A check that failed with `error`, said as `name: message`.
    package static func failed(_ name: String, _ error: AppError) -> DoctorCheck {
        DoctorCheck(name: name, error: error, detail: "\(name): \(error.message)")
    }

    /// Each value given.
    package init(name: String, error: AppError? = nil, detail: String, notes: [String] = [], isSkipped: Bool = false) {
        (self.name, self.error, self.detail, self.notes, self.isSkipped) = (name, error, detail, notes, isSkipped)
    }
}
