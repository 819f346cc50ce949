extension Array {
    /// The elements in runs of `size`, in order; the last run may be shorter.
    public func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
