import TrackerModel
import TrackerOperations

extension Context {
    /// The workspace a command's sessions are opened from, made of this context: its clocks, transport and engine;
    /// `--secrets`, `--profile` and `--timeout`; its requests said on stderr with `--verbose`, its waits on the status
    /// line. Every face the executable starts makes its sessions so: the command line, `mcp`, the board.
    func workspace(
        for invocation: Invocation, today: CalendarDate, output: Output? = nil, status: StatusLine? = nil
    ) -> Workspace {
        let context = self
        let output = output ?? context.output
        var network = context.network
        let name = type(of: invocation.command).spec.name
        network.face = type(of: invocation.command).spec.facts.contains(.staysOpen) ? name : "cli"
        if invocation.globals.isVerbose {
            network.log = { [output] line in output.standardError("tracker: \(line)\n") }
        }
        if output.isStderrTerminal {
            network.notify = { [output] line in output.standardError("tracker: \(line)\n") }
        }
        if let status {
            network.status = { text in
                if let text { status.show("tracker: " + text, isWait: true) } else { status.clear() }
            }
        }
        var surface = Workspace.Surface(
            environment: context.environment, currentDirectory: context.currentDirectory, today: today,
            timeZone: context.timeZone, now: context.now, network: network, makeTransport: context.makeTransport,
            prepareRuntimeDirectory: context.prepareRuntimeDirectory, coordinate: context.coordinate,
            userAgent: "tracker/\(Version.current)")
        surface.secretsPath = invocation.globals.secretsPath
        surface.profile = invocation.globals.profile
        surface.timeoutSeconds = invocation.globals.timeoutSeconds
        surface.maxAge = invocation.globals.maxAge
        surface.face = network.face
        surface.journals = context.journals
        surface.readsFromTeamCopy = type(of: invocation.command).spec.facts.contains(.readsTeamCopy)
        surface.makePacer = context.makePacer
        (surface.cache, surface.state) = (context.cacheDirectory, context.stateDirectory)
        surface.rememberedConfiguration = context.rememberedConfiguration
        surface.copies = context.copies
        surface.warn = { [output] line in output.standardError("tracker: \(line)\n") }
        surface.conceal = { [output] secret in output.conceal(secret) }
        surface.prepareNetwork = context.prepareNetwork
        return Workspace(surface)
    }
}
