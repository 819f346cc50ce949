#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel

/// AES-256-GCM through the system's libcrypto, loaded at run time as libcurl is (no package, no -dev headers): what
/// keeps a person's Airtable tokens unreadable at rest. A sealed value is the 12-byte nonce, the ciphertext and the
/// 16-byte tag; `context` is authenticated with it, so a value sealed for one grant does not open as another's.
package enum Sealing {
    /// Why sealing cannot be done here (libcrypto missing); nil when it can.
    package static var unavailableReason: String? { Crypto.shared == nil ? Crypto.missing : nil }

    /// `plaintext` sealed under the 32-byte `key`; nil when libcrypto is missing or refuses.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], context: String) -> [UInt8]? {
        guard key.count == 32, let crypto = Crypto.shared else { return nil }
        let nonce = randomBytes(12)
        return crypto.run(
            encrypting: true, key: key, nonce: nonce, input: plaintext, aad: Array(context.utf8), tag: nil
        )
        .map { nonce + $0.output + $0.tag }
    }

    /// What `seal` sealed, when `sealed` was sealed under `key` with `context` and not changed since; nil otherwise.
    package static func open(_ sealed: [UInt8], key: [UInt8], context: String) -> [UInt8]? {
        guard key.count == 32, sealed.count >= 28, let crypto = Crypto.shared else { return nil }
        let nonce = Array(sealed.prefix(12))
        let tag = Array(sealed.suffix(16))
        let body = Array(sealed.dropFirst(12).dropLast(16))
        return crypto.run(encrypting: false, key: key, nonce: nonce, input: body, aad: Array(context.utf8), tag: tag)?
            .output
    }

    /// `count` bytes from the system's secure generator.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

/// The few EVP calls AES-256-GCM needs, looked up once in libcrypto.
private final class Crypto: @unchecked Sendable {
    typealias New = @convention(c) () -> OpaquePointer?
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias Cipher = @convention(c) () -> OpaquePointer?
    typealias Initialise =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?)
        -> Int32
    typealias Update =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32
        )
        -> Int32
    typealias Final =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32
    typealias Control = @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32

    static let missing = "libcrypto (OpenSSL 3) could not be loaded: install libssl3"
    static let shared: Crypto? = Crypto()

    let new: New, free: Free, aes: Cipher, control: Control
    let encryptInit: Initialise, encryptUpdate: Update, encryptFinal: Final
    let decryptInit: Initialise, decryptUpdate: Update, decryptFinal: Final

    private init?() {
        #if os(macOS)
            let names = [
                "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib",
            ]
        #else
            let names = ["libcrypto.so.3", "libcrypto.so"]
        #endif
        guard let library = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else { return nil }
        func symbol<T>(_ name: String, _: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let new = symbol("EVP_CIPHER_CTX_new", New.self), let free = symbol("EVP_CIPHER_CTX_free", Free.self),
            let aes = symbol("EVP_aes_256_gcm", Cipher.self), let control = symbol("EVP_CIPHER_CTX_ctrl", Control.self),
            let encryptInit = symbol("EVP_EncryptInit_ex", Initialise.self),
            let encryptUpdate = symbol("EVP_EncryptUpdate", Update.self),
            let encryptFinal = symbol("EVP_EncryptFinal_ex", Final.self),
            let decryptInit = symbol("EVP_DecryptInit_ex", Initialise.self),
            let decryptUpdate = symbol("EVP_DecryptUpdate", Update.self),
            let decryptFinal = symbol("EVP_DecryptFinal_ex", Final.self)
        else { return nil }
        (self.new, self.free, self.aes, self.control) = (new, free, aes, control)
        (self.encryptInit, self.encryptUpdate, self.encryptFinal) = (encryptInit, encryptUpdate, encryptFinal)
        (self.decryptInit, self.decryptUpdate, self.decryptFinal) = (decryptInit, decryptUpdate, decryptFinal)
    }

    /// One encryption (the tag made) or decryption (the tag checked: nil when it does not match).
    func run(encrypting: Bool, key: [UInt8], nonce: [UInt8], input: [UInt8], aad: [UInt8], tag: [UInt8]?)
        -> (output: [UInt8], tag: [UInt8])?
    {
        guard let context = new() else { return nil }
        defer { free(context) }
        let (initialise, update, final) =
            encrypting ? (encryptInit, encryptUpdate, encryptFinal) : (decryptInit, decryptUpdate, decryptFinal)
        guard initialise(context, aes(), nil, key, nonce) == 1 else { return nil }
        var length: Int32 = 0
        if !aad.isEmpty { guard update(context, nil, &length, aad, Int32(aad.count)) == 1 else { return nil } }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard update(context, &output, &written, input, Int32(input.count)) == 1 else { return nil }
        }
        var tagBytes = tag ?? [UInt8](repeating: 0, count: 16)
        // EVP_CTRL_GCM_SET_TAG (0x11) before a decryption's final; EVP_CTRL_GCM_GET_TAG (0x10) after an encryption's.
        if !encrypting { guard control(context, 0x11, 16, &tagBytes) == 1 else { return nil } }
        var tail: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { final(context, $0.baseAddress! + Int(written), &tail) }
        guard finished == 1 else { return nil }
        if encrypting { guard control(context, 0x10, 16, &tagBytes) == 1 else { return nil } }
        return (Array(output.prefix(Int(written + tail))), tagBytes)
    }
}
