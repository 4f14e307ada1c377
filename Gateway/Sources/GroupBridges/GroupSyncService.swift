import ServiceLifecycle

/// The group sync as a service of the gateway: runs until graceful shutdown.
package struct GroupSyncService: Service {
    let sync: GroupSessionBridge

    package init(sync: GroupSessionBridge) { self.sync = sync }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await sync.run() }
    }
}
