import CommandLineSupport
import Platform

JournalLogHandler.bootstrap()
await GatewayCommand.mainWithOneLineErrors { StandardStream.standardError.write($0 + "\n") }
