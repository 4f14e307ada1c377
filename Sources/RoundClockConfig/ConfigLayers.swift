import TOML

/// The config file with the setup page's settings laid over it (`SettingsLayer`).
extension Config {
    /// Reads the config file at `path` with `layer` laid over it and checks the result as
    /// `load` does. An error about a key the layer sets names `layerFile`, else `path`.
    public static func load(_ path: String, layer: SettingsLayer, layerFile: String,
                            readingSoundFiles: Bool = true) throws(ConfigError) -> Config {
        try parse(try readTextFile(path), file: path, layer: layer, layerFile: layerFile, readingSoundFiles: readingSoundFiles)
    }

    /// `load(_:layer:layerFile:)` of configuration text.
    public static func parse(_ text: String, file: String, layer: SettingsLayer, layerFile: String,
                             readingSoundFiles: Bool = true) throws(ConfigError) -> Config {
        let below = try TOMLReader.parse(text, file: file).table
        let merged = TOMLReader(file: file, table: below.overlaid(by: layer.table))
        do {
            return try read(merged, file: file, readingSoundFiles: readingSoundFiles)
        } catch {
            throw layer.naming(error, as: layerFile)
        }
    }

    /// Where each setting comes from, one line per key the file or the layer sets
    /// (`key = value  <- source`), the layer's last; the Wi-Fi passphrase and the remote's PIN
    /// are not shown. Every other setting is the built-in default.
    public static func sources(fileText: String, file: String, layer: SettingsLayer, layerFile: String) throws(ConfigError) -> [String] {
        let below = try TOMLReader.parse(fileText, file: file).table
        let hidden: Set<String> = ["wifi.passphrase", "remote.pin"]
        var lines: [String] = []
        for path in below.valuePaths {
            let key = SettingsLayer.dotted(path)
            guard layer.value(key) == nil, let value = below[path: path] else { continue }
            lines.append(sourceLine(key, hidden.contains(key) ? "(not shown)" : value.inlineText(), from: file))
        }
        for key in layer.keyPaths {
            guard let value = layer.value(key) else { continue }
            let over = below[path: SettingsLayer.parts(key)].map { ", over the file's \($0.inlineText())" } ?? ""
            lines.append(sourceLine(key, value.inlineText(), from: "\(layerFile) (the setup page\(over))"))
        }
        return lines
    }

    private static func sourceLine(_ key: String, _ value: String, from source: String) -> String {
        let setting = "\(key) = \(value)"
        let padding = String(repeating: " ", count: max(1, 34 - setting.count))
        return "  \(setting)\(padding)<- \(source)"
    }
}
