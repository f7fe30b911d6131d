/// A drawing sheet of a project, on which issues are placed.
public struct Blueprint: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The sheet number, unique in the project (`"A-101"`); actions select a blueprint by it.
    public let id: String
    /// The sheet's name.
    public let title: String

    /// The sheet `id` named `title`.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }

    /// The sheets of the sample project the shell starts with.
    public static let samples = [
        Blueprint(id: "A-101", title: "Ground floor plan"),
        Blueprint(id: "A-102", title: "First floor plan"),
        Blueprint(id: "S-201", title: "Foundation details"),
    ]
}
