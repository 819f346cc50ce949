#if canImport(Glibc)
    import Glibc
#endif
func teamDebug(_ text: @autoclosure () -> String) {
    guard getenv("TRACKER_DEBUG_TEAM") != nil else { return }
    let line = Array("team: \(text())\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
