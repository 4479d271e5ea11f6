/// MIME types of the files `marmot send --file` and the web page send, guessed from the extension
/// (MIP-04 wants a canonical type; anything unknown goes as `application/octet-stream`).
enum MIMEType {
    static func guess(_ pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "svg": "image/svg+xml"
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "ogg": "audio/ogg"
        case "wav": "audio/wav"
        case "pdf": "application/pdf"
        case "txt", "md": "text/plain"
        case "json": "application/json"
        case "zip": "application/zip"
        default: "application/octet-stream"
        }
    }
}
