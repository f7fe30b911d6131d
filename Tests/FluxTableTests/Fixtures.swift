import FluxTable

/// The issue tracker table the renderer specs draw.
let issuesTable = TableViewModel(sections: [
    SectionModel(headerTitle: "Issues", headerHeight: 28, cells: [
        CellViewModel(title: "Open", detail: "12", accessory: .disclosure),
        CellViewModel(title: "Closed", detail: "340", accessory: .disclosure, selected: true),
        CellViewModel(title: "Crash when the window is resized during a sync", detail: "needs triage by the on-call engineer"),
    ]),
    SectionModel(headerTitle: "Labels", cells: [
        CellViewModel(title: "bug", detail: "red", accessory: .checkmark),
        CellViewModel(title: "wontfix", enabled: false),
    ]),
])
