#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerSystem

/// The board's first frame, drawn before its session opens: the board shows at once, and its first cards may follow
/// the first page without waiting out a frame of their own.
extension OpenBoard {
    /// A frame drawn before the board's session opened: what the terminal shows, and when it was drawn.
    package struct FirstFrame {
        var writer: FrameWriter
        var drawnAt: Double
    }

    /// Draws `model`'s empty board for `table` at once.
    package static func firstFrame(of model: BoardModel, table: String, host: BoardHost) -> FirstFrame {
        var model = model
        var writer = FrameWriter(colour: host.colour)
        let bytes = writer.frame(screen(unicode: host.unicode, table: table).render(&model))
        _ = FileDescriptorWriter.write(bytes, to: STDOUT_FILENO)
        return FirstFrame(writer: writer, drawnAt: MonotonicClock.now())
    }
}
