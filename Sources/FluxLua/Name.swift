import Foundation

/// The one form store, action, view and plugin names are kept and compared in: valid UTF-8, in
/// Unicode's composed normal form (NFC), so two names that look the same are the same name.
///
/// ```swift
/// try Name.normalized(Array("cafe\u{301}".utf8))   // "café", composed
/// try Name.normalized([0x63, 0xFF])               // throws: not valid UTF-8
/// ```
public enum Name {
    /// The name `bytes` spell, composed.
    ///
    /// - Throws: ``InvalidNameError`` when the bytes are not UTF-8: repairing them would make
    ///   different names the same one.
    public static func normalized(_ bytes: some Collection<UInt8>) throws(InvalidNameError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw InvalidNameError(bytes: Array(bytes)) }
        return normalized(text)
    }

    /// Refuses a name being defined (a store, an action it handles, a view) that holds a control
    /// character: names are shown on terminals, where ESC could set the title or clear the screen, and
    /// a line break would split a listing.
    public static func checkPrintable(_ name: String) throws(InvalidNameError) {
        guard name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return }
        throw InvalidNameError(bytes: Array(name.utf8), holdsControlCharacters: true)
    }

    /// `text`, composed.
    public static func normalized(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
    }
}

/// A name that is not valid UTF-8.
public struct InvalidNameError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The name's bytes.
    public var bytes: [UInt8]
    /// Whether the bytes are UTF-8 but hold a control character (ESC, a newline) a terminal would act on.
    public var holdsControlCharacters = false

    public init(bytes: [UInt8], holdsControlCharacters: Bool = false) {
        self.bytes = bytes
        self.holdsControlCharacters = holdsControlCharacters
    }

    /// `name "caf\xE9" is not valid UTF-8`: printable ASCII as it is, other bytes as `\xNN`.
    public var description: String {
        let shown = bytes.map { (0x20 ..< 0x7F).contains($0) && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "\"")
            ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }
        if holdsControlCharacters {
            return "name \"\(shown.joined())\" holds a control character: names are printable text (they are shown on terminals)"
        }
        return "name \"\(shown.joined())\" is not valid UTF-8"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension LuaStack {
    /// The string at `index` as a name (see ``Name``); nil when the value is not a string.
    ///
    /// - Throws: ``InvalidNameError`` for a string that is not valid UTF-8.
    public func name(at index: Int32) throws(InvalidNameError) -> String? {
        guard let bytes = withBytes(at: index, { Array($0) }) else { return nil }
        return try Name.normalized(bytes)
    }
}
