import CFluxLua

/// A function Lua's `print` and `io.write` call before they write anything, in every VM of the process:
/// the shell's prompt clears the line being edited when an effect's callback is about to print above it.
///
/// ```swift
/// LuaOutputHook.set { PromptGuard.hide() }
/// defer { LuaOutputHook.set(nil) }
/// ```
public enum LuaOutputHook {
    /// Sets the hook (nil: none). It runs on the thread that prints, before the first byte is written.
    public static func set(_ hook: (@convention(c) () -> Void)?) {
        flux_setoutputhook(hook)
    }
}
