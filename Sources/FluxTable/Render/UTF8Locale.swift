import Glibc

/// glibc's `wcwidth` with a UTF-8 `LC_CTYPE` locale, under which it knows the width of every Unicode
/// character (under the C locale it answers -1 for anything not ASCII).
///
/// The locale is made current only for the calling thread and only while measuring (`uselocale`),
/// rather than with `setlocale`: the process's locale belongs to its host, and Lua and readline read it.
/// `wcwidth` is looked up with `dlsym` because the Glibc module does not declare it (its header hides it
/// behind `_XOPEN_SOURCE`), and this target has no C shim of its own.
struct UTF8Locale: @unchecked Sendable {
    // `locale_t` points at data glibc never changes once built, and the function is pure: both are
    // safe to share between threads.
    private let handle: locale_t
    private let wcwidth: @convention(c) (Int32) -> Int32

    /// The first UTF-8 locale available: C.UTF-8 (built into glibc since 2.35), the environment's own
    /// locale when it is UTF-8, then en_US.UTF-8; nil when there is none or `wcwidth` is missing.
    static let shared: UTF8Locale? = {
        guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "wcwidth") else { return nil }
        let wcwidth = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        for name in ["C.UTF-8", "C.utf8", "", "en_US.UTF-8"] {
            guard let handle = newlocale(Int32(LC_CTYPE_MASK), name, nil) else { continue }
            if let codeset = nl_langinfo_l(nl_item(CODESET), handle), isUTF8(String(cString: codeset)) {
                return UTF8Locale(handle: handle, wcwidth: wcwidth)
            }
            freelocale(handle)
        }
        return nil
    }()

    /// Runs `body` with this locale current on the calling thread; `body` gets `wcwidth`.
    func withCurrent<T>(_ body: (_ wcwidth: @convention(c) (Int32) -> Int32) throws -> T) rethrows -> T {
        let previous = uselocale(handle)
        defer { uselocale(previous) }
        return try body(wcwidth)
    }

    /// Whether a codeset or locale name says UTF-8 (`UTF-8`, `utf8`, `en_US.UTF-8`).
    static func isUTF8(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.contains("utf-8") || lowered.contains("utf8")
    }
}
