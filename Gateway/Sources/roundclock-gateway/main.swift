import CommandLineSupport
import Platform

JournalLogHandler.bootstrap()
await GatewayCommand.mainWithOneLineErrors { StandardStream.error.write($0 + "\n") }
