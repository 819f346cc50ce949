/// A key as the board reads it: the arrows and editing keys by name, everything printable as its character.
package enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl-C.
    case interrupt
    /// Ctrl-Z.
    case suspend
    /// Ctrl-L: draw everything again.
    case redraw
    case character(Character)
    /// The terminal's window gained or lost focus (reported after `CSI ? 1004 h`): not keys a person pressed.
    case focusIn, focusOut
}

/// Reads keys out of the bytes a terminal in raw mode sends. `ESC [ A` and `ESC O A` are both the up arrow; a
/// sequence it does not know is dropped whole, never taken as the characters it holds.
package enum KeyParser {
    /// The keys in `bytes`, and the bytes of an unfinished sequence at the end, kept for the next read. A lone ESC at
    /// the end is unfinished too: the reader waits a moment for more before calling `finish`.
    package static func parse(_ bytes: [UInt8]) -> (keys: [Key], rest: [UInt8]) {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                guard let (key, length) = escape(bytes[index...]) else { return (keys, Array(bytes[index...])) }
                if let key { keys.append(key) }
                index += length
                continue
            }
            switch byte {
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x09: keys.append(.tab)
            case 0x03: keys.append(.interrupt)
            case 0x1A: keys.append(.suspend)
            case 0x0C: keys.append(.redraw)
            case 0x00..<0x20: break
            default:
                // UTF-8: a character is its leading byte and the continuation bytes after it.
                let length =
                    byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                guard index + length <= bytes.count else { return (keys, Array(bytes[index...])) }
                let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
                if let character = text.first, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0 != "\u{FFFD}" })
                {
                    keys.append(.character(character))
                }
                index += length
                continue
            }
            index += 1
        }
        return (keys, [])
    }

    /// What is left after a wait with nothing more: a lone ESC is the Esc key; anything else unfinished is dropped.
    package static func finish(_ rest: [UInt8]) -> [Key] {
        rest == [0x1B] ? [.escape] : []
    }

    /// The key an escape sequence at the start of `bytes` stands for (nil for one to ignore) and its length; nil when
    /// the sequence is not finished yet.
    private static func escape(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        if second == 0x1B { return (.escape, 1) }
        guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else {
            // Alt and a key: the key alone would surprise; Esc then the key is what most programs do.
            return (.escape, 1)
        }
        // CSI: parameters and intermediates, then a final byte from @ to ~.
        var index = start + 2
        while index < bytes.endIndex {
            let byte = bytes[index]
            if (0x40...0x7E).contains(byte) {
                let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
                return (key(final: byte, parameters: parameters), index - start + 1)
            }
            guard (0x20...0x3F).contains(byte) else { return (nil, index - start) }
            index += 1
        }
        return nil
    }

    private static func key(final: UInt8, parameters: String) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "I"): .focusIn
        case UInt8(ascii: "O"): .focusOut
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": .home
            case "4", "8": .end
            case "5": .pageUp
            case "6": .pageDown
            default: nil
            }
        default: nil
        }
    }
}
