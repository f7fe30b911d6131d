/// Work whose passing states nobody should see.
extension Dispatcher {
    /// Runs `body` with no store publishing: what it dispatches, undoes or redoes changes the stores, the
    /// undo history and middleware as usual, but observers hear none of it (nor do they dispatch follow-ups
    /// on hearing it). When it ends, thrown or not, every store publishes once: observers hear where it
    /// left them — an `Equatable` store's and a Lua store's only when that differs from what they heard
    /// last.
    ///
    /// A travel to a point of a session's journal replays the actions from the snapshot before it, then
    /// puts every store to the states reached in one step: a subscriber hears that step, not each action
    /// replayed to find it.
    ///
    /// ```swift
    /// try dispatcher.silently {
    ///     try dispatcher.allOrNothing { try replay(entries); throw Rewind() }
    /// }
    /// ```
    ///
    /// - Throws: ``DispatcherError/historyDuringDispatch`` inside a dispatch or group (nothing ran), or
    ///   what `body` throws.
    public func silently<T>(_ body: () throws -> T) throws -> T {
        guard hot.phase == .idle, hot.openGroup == nil, !hot.isSilent else { throw DispatcherError.historyDuringDispatch }
        hot.isSilent = true
        defer {
            hot.isSilent = false
            hot.phase = .notifying
            for registration in registrations { registration.lane.publish(registration.object) }
            hot.phase = .idle
            if !hot.followUps.isEmpty { drainFollowUps() }
        }
        return try body()
    }
}
