import FluxShell

/// A shell with the shipped features whose output and errors are kept, for specs that type into it.
final class ShellTranscript {
    private(set) var output = ""
    private(set) var errors = ""
    private(set) var shell: Shell!

    init(features: Bool = true, unicode: Bool = true, width: Int = 80) {
        var configuration = ShellConfiguration()
        configuration.features = features
        configuration.color = false
        configuration.width = width
        configuration.unicode = unicode
        shell = Shell(configuration: configuration,
                      write: { [unowned self] in output += $0 },
                      writeError: { [unowned self] in errors += $0 })
    }

    /// Types `input`; returns what it printed and whether it succeeded, and forgets both.
    @discardableResult
    func type(_ input: String) -> (ok: Bool, output: String, errors: String) {
        let ok = shell.execute(input)
        defer { output = ""; errors = "" }
        return (ok, output, errors)
    }

    /// What `input` printed (it must succeed with no error).
    func print(_ input: String) -> String {
        let result = type(input)
        return result.ok && result.errors.isEmpty ? result.output : "FAILED: " + result.errors
    }
}
