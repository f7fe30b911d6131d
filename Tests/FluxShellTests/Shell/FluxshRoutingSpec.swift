import Foundation
import Testing

/// How `fluxsh` routes its words (ArgumentParser, with `Fluxsh.Start` the default subcommand): options
/// before or after a subcommand's name, options after a script (the script's), `--`, and a script named
/// like a subcommand.
@Suite("fluxsh routing")
struct FluxshRoutingSpec {
    /// A folder with a script that prints its arguments and how many stores the shell has, the same
    /// script under the names `run` and `test`, and a test script.
    private func folder() throws -> String {
        let folder = temporaryPath("routing")
        try FileManager.default.createDirectory(atPath: folder + "/specs", withIntermediateDirectories: true)
        // `fluxsh run` sets no `arg`: the script is then "-".
        let script = #"print(arg and arg[0] or "-", #flux.stores() > 0 and "features" or "no stores", ...)"#
        for name in ["args.lua", "run", "test"] { try script.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        try #"print(#flux.stores() > 0 and "features" or "no stores")"#
            .write(toFile: folder + "/specs/stores_spec.lua", atomically: true, encoding: .utf8)
        return folder
    }

    @Test("an option of every mode counts before the subcommand's name, after it, and after its files")
    func optionsAroundTheSubcommand() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for arguments in [["--no-features", "run", "args.lua"], ["run", "--no-features", "args.lua"], ["run", "args.lua", "--no-features"]] {
            let result = try FluxshProcess.run(arguments, in: folder)
            #expect(result.status == 0 && result.output == "-\tno stores\n", "\(arguments): \(result)")
        }
        for arguments in [["--no-features", "test", "--jobs", "1", "specs"], ["test", "--jobs", "1", "--no-features", "specs"],
                          ["test", "--jobs", "1", "specs", "--no-features"]] {
            let result = try FluxshProcess.run(arguments, in: folder)
            #expect(result.status == 0 && result.output.hasPrefix("no stores\nok    specs/stores_spec.lua"), "\(arguments): \(result)")
        }
        // Said at two places, they must still agree.
        let both = try FluxshProcess.run(["--session", "a", "run", "args.lua", "--no-session"], in: folder)
        #expect(both.status == 64 && both.errors.contains("--session and --no-session cannot be given together"), "\(both)")
        #expect(both.errors.contains("Usage: fluxsh run "), "\(both.errors)")
    }

    @Test("without a subcommand: options before the script are fluxsh's, words after it the script's, --help included")
    func defaultMode() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try FluxshProcess.run(["--no-features", "args.lua", "x"], in: folder).output == "args.lua\tno stores\tx\n")
        #expect(try FluxshProcess.run(["args.lua", "--no-features", "-e", "x"], in: folder).output
            == "args.lua\tfeatures\t--no-features\t-e\tx\n")
        #expect(try FluxshProcess.run(["args.lua", "--help"], in: folder).output == "args.lua\tfeatures\t--help\n")
        #expect(try FluxshProcess.run(["-e", "print(#flux.stores())", "--no-features"], in: folder).output == "0\n")
        // --help among fluxsh's own options is fluxsh's help, with the sections ArgumentParser does not make.
        let help = try FluxshProcess.run(["-e", "print(1)", "--help"], in: folder)
        #expect(help.status == 0 && help.output.contains("\nSUBCOMMANDS:\n") && help.output.contains("\nEXAMPLES:\n"), "\(help)")
        #expect(help.output == (try FluxshProcess.run(["--help"])).output)
    }

    @Test("a script named like a subcommand runs after -- or by its path; the bare name is the subcommand")
    func scriptNamedLikeASubcommand() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try FluxshProcess.run(["--", "run", "a"], in: folder).output == "run\tfeatures\ta\n")
        #expect(try FluxshProcess.run(["--no-features", "--", "test", "a"], in: folder).output == "test\tno stores\ta\n")
        #expect(try FluxshProcess.run(["./test", "a", "--", "b"], in: folder).output == "./test\tfeatures\ta\t--\tb\n")
        let subcommand = try FluxshProcess.run(["run"], in: folder)
        #expect(subcommand.status == 64 && subcommand.errors.contains("USAGE: fluxsh run "), "\(subcommand)")
        // After the subcommand's name, -- ends its options: a file named like an option is a file.
        try "print('dashed')".write(toFile: folder + "/--x.lua", atomically: true, encoding: .utf8)
        #expect(try FluxshProcess.run(["run", "--", "--x.lua"], in: folder).output == "dashed\n")
    }
}
