/// Escapes text for HTML element content and attribute values.
package enum HTMLEscaping {
    /// `text` with `& < > " '` replaced by character references.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `text` escaped, with each `` `code` `` span (as the advice writes `weak var`) shown as
    /// `<code>` rather than with its backticks. An unpaired backtick stays as it is.
    package static func escapeWithInlineCode(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        // With an odd number of backticks, the last one has no partner: the text after it is plain.
        let pairedEnd = parts.count % 2 == 1 ? parts.count : parts.count - 1
        var out = ""
        for (index, part) in parts.enumerated() {
            if index >= pairedEnd {
                out += "`" + escape(String(part))
            } else if index % 2 == 1 {
                out += "<code>" + escape(String(part)) + "</code>"
            } else {
                out += escape(String(part))
            }
        }
        return out
    }
}
