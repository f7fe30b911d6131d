import Flux
import Testing

@Suite("PathParts: a path's folder and name, for any name a user may give")
struct PathPartsSpec {
    @Test("a bare name, one character included, has no folder (Foundation's splitting traps on these)")
    func bareNames() {
        for name in ["t", "-", "é", "ab", "init.lua"] {
            #expect(PathParts.folder(of: name) == "", "\(name)")
            #expect(PathParts.name(of: name) == name, "\(name)")
        }
    }

    @Test("folders, the root and trailing slashes split as dirname and basename split them")
    func folders() {
        #expect(PathParts.folder(of: "t/u") == "t")
        #expect(PathParts.folder(of: "t/") == "")
        #expect(PathParts.folder(of: "a/b/c.lua") == "a/b")
        #expect(PathParts.folder(of: "a//b") == "a")
        #expect(PathParts.folder(of: "/t") == "/")
        #expect(PathParts.folder(of: "/") == "/")
        #expect(PathParts.folder(of: "") == "")
        #expect(PathParts.name(of: "plugins/todo/") == "todo")
        #expect(PathParts.name(of: "/") == "/")
        #expect(PathParts.name(of: "") == "")
    }
}
