import FluxTable

/// Shows a connect-four game: the instruction as header, the six board rows from the top, and the
/// column numbers `connectFour.dropToken` takes, under their columns.
public enum ConnectFourViewProvider {
    /// The board of `state`.
    public static func tableViewModel(for state: ConnectFourState) -> TableViewModel {
        BoardGameViewProvider.tableViewModel(for: state, numbering: .columns)
    }
}
