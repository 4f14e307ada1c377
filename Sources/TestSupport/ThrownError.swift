import Testing

/// The error of type `E` that `body` throws, or nil after recording an issue when it throws
/// nothing or an error of another type: what `#expect(throws: E.self)` returns from Swift 6.1
/// on (ST-0006), for Swift 6.0 (Debian trixie's), whose `#expect(throws:)` returns nothing.
public func thrownError<E: Error>(
    _ errorType: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> E? {
    do {
        try body()
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected an error of type \(E.self), caught \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected an error of type \(E.self), none was thrown", sourceLocation: sourceLocation)
    return nil
}
