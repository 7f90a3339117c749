//! Error messages of the HTTP and JSON clients LLM callers use, taken from each client's own
//! source or documentation rather than from reports: the canonical text a library prints for a
//! refused, reset or cut connection, a timeout, a name that does not resolve, a certificate it
//! refuses, or a reply it cannot parse. One table per catalog, one fact a row, each with where it
//! is published; rows join the client tables (`clients::rows`), so they are read as whole-word
//! phrases with the rest (CONTRACT §2: timeouts `timeout`; refused, reset, closed, EOF and a
//! temporary DNS failure `connection`; a name that does not resolve and a certificate
//! `configuration`; a reply that does not parse `invalid_response`).

use super::clients::ClientTable;
use super::{said, Phrase};
use crate::category::Category::*;

/// Every catalog table: transport words, read with the other client tables.
pub const TABLES: &[ClientTable] = &[
    ClientTable {
        client: "OpenJDK java.net.http (HttpClient) and OkHttp",
        source:
            "openjdk/jdk src/java.net.http/share/classes/jdk/internal/net/http/Http1Response.java; \
                 square/okhttp okhttp3/internal/tls/OkHostnameVerifier, RealConnection.kt",
        rows: &[
            // The JDK client's read of a status line that got no byte at all: the server
            // closed the connection before answering.
            said("header parser received no bytes", Connection),
            // OkHttp's check that the certificate names the host ("Hostname x not verified"),
            // thrown as javax.net.ssl.SSLPeerUnverifiedException: the next try meets the same
            // certificate.
            said("sslpeerunverifiedexception", Configuration),
            // The JDK's hostname check in its own words (sun.security.util.HostnameChecker:
            // "No subject alternative DNS name matching x found.", "No subject alternative
            // names present"), under an SSLHandshakeException whose name alone is transient.
            said("no subject alternative dns name matching", Configuration),
            said("no subject alternative names present", Configuration),
        ],
    },
    ClientTable {
        client: ".NET sockets on Linux",
        source: "dotnet/runtime src/libraries/System.Net.Primitives SocketError.TryAgain",
        rows: &[
            // EAI_AGAIN/EAGAIN as .NET prints it under HttpRequestException ("Resource
            // temporarily unavailable (host:443)"): a resolver or socket that may answer next
            // time, the link's, not a server that answered.
            said("resource temporarily unavailable", Connection),
        ],
    },
    ClientTable {
        client: "curl",
        source: "curl/curl lib/strerror.c (CURLE_GOT_NOTHING), lib/transfer.c (\"Empty reply from server\")",
        rows: &[
            // CURLE_GOT_NOTHING in both its words: the server closed the connection without a
            // byte of answer, the link's fault; not an LLM's empty reply (which comes as a
            // complete HTTP answer), whatever an app puts before it.
            said("empty reply from server", Connection),
            said("server returned nothing (no headers, no data)", Connection),
        ],
    },
    ClientTable {
        client: "musl libc resolver (Alpine images of .NET, curl, Python)",
        source: "musl src/network/gai_strerror.c (EAI_NONAME)",
        rows: &[
            // musl's EAI_NONAME text, where glibc says "Name or service not known": the name
            // does not exist, the next try meets the same answer.
            said("name does not resolve", Configuration),
        ],
    },
    ClientTable {
        client: "Go net/http request bodies",
        source: "golang/go src/net/http/transfer.go (transferWriter.writeBody)",
        rows: &[
            // "http: ContentLength=N with Body length M": the request declared more bytes than
            // its body gave, typically a body reader spent by a first try and sent again.
            said("with body length", Programming),
        ],
    },
    ClientTable {
        client: ".NET System.Uri",
        source: "dotnet/runtime src/libraries/System.Private.Uri/src/Resources/Strings.resx",
        rows: &[
            // net_uri_BadFormat: a base URL that is not one, the caller's set-up.
            said(
                "the format of the uri could not be determined",
                Configuration,
            ),
        ],
    },
    ClientTable {
        client: ".NET Framework System.Net (WebException) and HttpClient",
        source: "dotnet/runtime src/libraries/System.Net.Http/src/Resources/Strings.resx \
                 (net_http_invalid_response_status_line); referencesource System.dll \
                 net_webstatus_NameResolutionFailure",
        rows: &[
            // WebExceptionStatus.NameResolutionFailure: the name has no address.
            said("the remote name could not be resolved", Configuration),
            // HttpClient reading something that is not an HTTP status line (an HTML page from
            // a plain-text port, a proxy's banner): the answer cannot be read.
            said("received an invalid status line", InvalidResponse),
        ],
    },
    ClientTable {
        client: "Android (Conscrypt) and OkHttp HttpUrl",
        source: "google/conscrypt TrustManagerImpl; square/okhttp okhttp3/HttpUrl.kt",
        rows: &[
            // Android's trust manager without the server's CA: the same refusal next time.
            said("trust anchor for certification path not found", Configuration),
            // OkHttp's URL builder on a base URL without a scheme.
            said("expected url scheme 'http' or 'https'", Configuration),
        ],
    },
    ClientTable {
        client: "Python http.client and urllib3",
        source: "python/cpython Lib/http/client.py (HTTPConnection._get_hostport); \
                 urllib3/urllib3 src/urllib3/exceptions.py (LocationParseError)",
        rows: &[
            // `InvalidURL("nonnumeric port: '...'")`: a base URL with a path where the port
            // goes, the caller's set-up.
            said("nonnumeric port", Configuration),
            // urllib3's `LocationParseError` as a traceback's last line prints it: the whole
            // message outranks the broad "failed to parse" inside it (`covering`).
            said("locationparseerror: failed to parse", Configuration),
        ],
    },
];

/// A client's whole canonical message in `hay` that holds the broad phrase `inner` another
/// table matched inside it ("empty reply" inside curl's "Empty reply from server"): the
/// client's words are the more specific fact and decide. A short scan over these tables' rows.
pub fn covering(hay: &str, inner: &str) -> Option<crate::category::Category> {
    TABLES
        .iter()
        .flat_map(|t| t.rows.iter())
        .find(|r| {
            r.text.len() > inner.len()
                && r.text.contains(inner)
                && crate::classify::text::contains_phrase(hay, r.text)
        })
        .map(|r| r.category)
}

/// Where a decoder quotes the reply it failed on: json-iterator's `ReportError` ends its
/// message with "bigger context ...|<the reply's first bytes>|..." (json-iterator/go iter.go).
pub const DECODER_QUOTES: &[&str] = &["bigger context ...|"];

/// The reply a decoder's message quotes, if it quotes one (`DECODER_QUOTES`), in `hay`'s case.
pub fn decoder_quote(hay: &str) -> Option<&str> {
    DECODER_QUOTES
        .iter()
        .find_map(|m| hay.find(m).map(|i| &hay[i + m.len()..]))
}

/// A reply the client could not decode, in the decoders' own words; read with the decode table
/// (`text::decode`), so a decode failure said of the request a server received stays the
/// request's (a 400 from a Go server that could not read the caller's JSON).
/// - Go encoding/json's v2 and json-iterator twins of v1's `SyntaxError` (v1's own contexts
///   are `go_json::SYNTAX`).
/// - Jackson `JsonEOFException` (jackson-core `ParserMinimalBase._reportInvalidEOF`):
///   "Unexpected end-of-input: expected close marker for Object", "Unexpected end-of-input in
///   VALUE_STRING".
/// - aiohttp `ContentTypeError` (aiohttp/client_reqrep.py `ClientResponse.json`): "Attempt to
///   decode JSON with unexpected mimetype: text/html" (an error page where JSON was due).
pub const DECODE: &[Phrase] = &[
    // Go's encoding/json v1 `SyntaxError` contexts are `go_json::SYNTAX` (read with these).
    // Go's encoding/json/v2 (src/encoding/json/jsontext: "invalid character '<' at start of
    // value", "... after object name (expecting ':')") and json-iterator, which many Go SDKs
    // use (json-iterator/go iter.go `ReportError`: "readObjectStart: expect { or n, but found
    // <, error found in #1 byte of ...|<!DOCTYPE |..."): the same scanner facts, other words.
    said("at start of value", InvalidResponse),
    said("at start of string (expecting", InvalidResponse),
    said("after object name (expecting", InvalidResponse),
    said("after object value (expecting", InvalidResponse),
    said("error found in #", InvalidResponse),
    said("unexpected end-of-input", InvalidResponse),
    said("decode json with unexpected mimetype", InvalidResponse),
    // Gson's reader at an input that ended ("java.io.EOFException: End of input at line 1
    // column 1 path $", JsonReader.nextNonWhitespace): an empty or cut reply under the parser,
    // read before the bare "eof" of the transport tables.
    said("end of input at line", InvalidResponse),
    said("jsonsyntaxexception", InvalidResponse),
];

#[cfg(test)]
mod client_catalog_tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    /// Checks a whole catalog and reports every message decided wrong at once (the count is the
    /// measure of how far the tables are from the client), rather than stopping at the first.
    fn catalog(name: &str, cases: Vec<(Failure, Category)>) {
        // Each message also as an app logs it, behind its own prefix (the way batch 34 met
        // curl's empty reply): the client's words must decide there too.
        let prefixed: Vec<(Failure, Category)> = cases
            .iter()
            .filter(|(f, _)| f.error_class.is_empty() && f.status.is_none())
            .map(|(f, want)| (text(&format!("LLM request failed: {}", f.message)), *want))
            // A class given apart, also as a traceback's last line prints it ("Class: text").
            .chain(
                cases
                    .iter()
                    .filter(|(f, _)| f.error_class.len() == 1 && !f.message.is_empty())
                    .map(|(f, want)| {
                        (text(&format!("{}: {}", f.error_class[0], f.message)), *want)
                    }),
            )
            .collect();
        let cases: Vec<(Failure, Category)> = cases.into_iter().chain(prefixed).collect();
        let total = cases.len();
        let wrong: Vec<String> = cases
            .into_iter()
            .filter_map(|(f, want)| {
                let c = classify(&f);
                ((c.category, c.transient) != (want, want.is_transient())).then(|| {
                    format!(
                        "  {:?} / {:?}: got {:?} ({}), want {want:?}",
                        f.error_class, f.message, c.category, c.transient
                    )
                })
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{name}: {} of {total} wrong\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    fn text(m: &str) -> Failure {
        Failure::new(m)
    }

    fn class(c: &str, m: &str) -> Failure {
        Failure::new(m).with_class([c])
    }

    /// Go's encoding/json `SyntaxError` texts (src/encoding/json/scanner.go: `s.error(c,
    /// context)` prints "invalid character 'c' <context>"; `eof()` prints "unexpected end of
    /// JSON input") and `UnmarshalTypeError` (decode.go) on a reply, as Go clients log them.
    #[test]
    fn go_encoding_json() {
        catalog(
            "go encoding/json",
            vec![
                (
                    text("invalid character '<' looking for beginning of value"),
                    InvalidResponse,
                ),
                (text("unexpected end of JSON input"), InvalidResponse),
                (
                    text("error decoding response: invalid character 'd' after top-level value"),
                    InvalidResponse,
                ),
                (
                    text("invalid character '}' looking for beginning of object key string"),
                    InvalidResponse,
                ),
                (
                    text("invalid character 'r' after object key:value pair"),
                    InvalidResponse,
                ),
                (
                    text("invalid character ']' after object key"),
                    InvalidResponse,
                ),
                (
                    text("invalid character 'x' after array element"),
                    InvalidResponse,
                ),
                (
                    text("invalid character '\\n' in string literal"),
                    InvalidResponse,
                ),
                (
                    text("invalid character 'o' in literal null (expecting 'u')"),
                    InvalidResponse,
                ),
                (
                    text("failed to decode response: invalid character 'I' looking for beginning of value"),
                    InvalidResponse,
                ),
                (
                    text("json: cannot unmarshal string into Go value of type openai.ChatCompletionResponse"),
                    InvalidResponse,
                ),
                (
                    text("json: cannot unmarshal array into Go struct field ChatCompletionResponse.choices of type openai.ChatCompletionChoice"),
                    InvalidResponse,
                ),
                // Go's other decoders: encoding/json/v2 (jsontext) and json-iterator
                // (used by many Go SDKs), an error page read as JSON.
                (text("jsontext: invalid character '<' at start of value"), InvalidResponse),
                (text("json: cannot unmarshal JSON string into Go openai.ChatCompletionResponse: jsontext: invalid character 'I' at start of value"), InvalidResponse),
                (text("openai.ChatCompletionResponse.readFieldHash: expect \", but found <, error found in #10 byte of ...|<html><body|..., bigger context ...|<html><body><h1>502 Bad Gateway</h1>|..."), ServerError),
                (text("readObjectStart: expect { or n, but found <, error found in #1 byte of ...|<!DOCTYPE |..., bigger context ...|<!DOCTYPE html>|..."), InvalidResponse),
                (text("ReadString: expects \" or n, but found 1, error found in #10 byte of ...|\"content\":1}|..."), InvalidResponse),
            ],
        );
    }

    /// Go's net/http and net errors as `*url.Error` prints them (`Post "<url>": <err>`):
    /// transport.go's `errServerClosedIdle`, "net/http: TLS handshake timeout", "net/http:
    /// timeout awaiting response headers", client.go's "(Client.Timeout exceeded while awaiting
    /// headers)", net's dial/lookup errors, crypto/x509's certificate errors, and http2's
    /// GOAWAY and stream errors.
    #[test]
    fn go_net_http() {
        let u = "Post \"https://api.openai.com/v1/chat/completions\": ";
        catalog(
            "go net/http",
            vec![
                (
                    text(&format!("{u}dial tcp: lookup api.openai.com: no such host")),
                    Configuration,
                ),
                (
                    text(&format!(
                        "{u}dial tcp 127.0.0.1:11434: connect: connection refused"
                    )),
                    Connection,
                ),
                (
                    text(&format!("{u}read tcp 192.168.1.5:53422->104.18.7.192:443: read: connection reset by peer")),
                    Connection,
                ),
                (text(&format!("{u}EOF")), Connection),
                (text(&format!("{u}unexpected EOF")), Connection),
                (text(&format!("{u}net/http: TLS handshake timeout")), Timeout),
                (
                    text(&format!("{u}context deadline exceeded (Client.Timeout exceeded while awaiting headers)")),
                    Timeout,
                ),
                (
                    text(&format!("{u}net/http: timeout awaiting response headers")),
                    Timeout,
                ),
                (
                    text(&format!("{u}http: server closed idle connection")),
                    Connection,
                ),
                (
                    text(&format!("{u}dial tcp 104.18.7.192:443: i/o timeout")),
                    Timeout,
                ),
                (
                    text(&format!("{u}tls: failed to verify certificate: x509: certificate signed by unknown authority")),
                    Configuration,
                ),
                (
                    text(&format!("{u}x509: certificate has expired or is not yet valid: current time 2026-11-27T08:00:00Z is after 2026-10-01T00:00:00Z")),
                    Configuration,
                ),
                (
                    text(&format!("{u}tls: failed to verify certificate: x509: certificate is valid for *.example.com, not api.openai.com")),
                    Configuration,
                ),
                (
                    text(&format!("{u}http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR, debug=\"\"")),
                    Connection,
                ),
                (
                    text(&format!(
                        "{u}write tcp 10.0.0.2:51234->104.18.7.192:443: write: broken pipe"
                    )),
                    Connection,
                ),
                (
                    text(&format!(
                        "{u}dial tcp 10.0.0.9:443: connect: no route to host"
                    )),
                    Connection,
                ),
                (
                    text(&format!(
                        "{u}dial tcp [::1]:11434: connect: network is unreachable"
                    )),
                    Connection,
                ),
                (
                    text(&format!("{u}dial tcp: lookup api.openai.com on 127.0.0.53:53: server misbehaving")),
                    Connection,
                ),
                (
                    text("Post \"api.openai.com/v1/chat/completions\": unsupported protocol scheme \"\""),
                    Configuration,
                ),
                // Second sweep of the same catalog.
                (text("Post \"https://api.openai.com/v1/chat/completions\": net/http: request canceled (Client.Timeout exceeded while reading body)"), Timeout),
                (text("Post \"https://api.openai.com/v1/chat/completions\": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)"), Timeout),
                (text("Post \"https://api.openai.com/v1/chat/completions\": http2: client connection lost"), Connection),
                (text("Post \"https://api.openai.com/v1/chat/completions\": http2: timeout awaiting response headers"), Timeout),
                (text("Post \"https://api.openai.com/v1/chat/completions\": net/http: HTTP/1.x transport connection broken: unexpected EOF"), Connection),
                (text("Post \"https://api.openai.com/v1/chat/completions\": context deadline exceeded"), Timeout),
                (text("Post \"https://localhost:11434/api/chat\": http: server gave HTTP response to HTTPS client"), Configuration),
                (text("Post \"https://api.openai.com/v1/chat/completions\": http: ContentLength=1234 with Body length 0"), Programming),
                // Third sweep.
                (text("Post \"https://localhost:11434/v1/chat/completions\": tls: first record does not look like a TLS handshake"), Configuration),
                (text("Post \"https://api.openai.com/v1/chat/completions\": proxyconnect tcp: dial tcp 127.0.0.1:7890: connect: connection refused"), Connection),
                (text("Post \"https://api.openai.com/v1/chat/completions\": read tcp 10.0.0.2:51234->104.18.7.192:443: read: connection timed out"), Timeout),
                (text("Post \"https://api.openai.com/v1/chat/completions\": tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match api.openai.com"), Configuration),
            ],
        );
    }

    /// curl's messages as the CLI prints them ("curl: (N) <text>"): `curl_easy_strerror`
    /// (lib/strerror.c) and the detail texts libcurl sets for the same codes.
    #[test]
    fn curl() {
        catalog(
            "curl",
            vec![
                (text("curl: (6) Could not resolve host: api.openai.com"), Configuration),
                (text("curl: (6) Couldn't resolve host name"), Configuration),
                (
                    text("curl: (7) Failed to connect to localhost port 11434 after 0 ms: Couldn't connect to server"),
                    Connection,
                ),
                (
                    text("curl: (7) Failed to connect to localhost port 11434 after 2 ms: Connection refused"),
                    Connection,
                ),
                (
                    text("curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received"),
                    Timeout,
                ),
                (
                    text("curl: (28) Connection timed out after 10001 milliseconds"),
                    Timeout,
                ),
                (text("curl: (28) Timeout was reached"), Timeout),
                (text("curl: (52) Empty reply from server"), Connection),
                (
                    text("curl: (52) Server returned nothing (no headers, no data)"),
                    Connection,
                ),
                (text("curl: (56) Recv failure: Connection reset by peer"), Connection),
                (
                    text("curl: (56) Failure when receiving data from the peer"),
                    Connection,
                ),
                (text("curl: (55) Send failure: Broken pipe"), Connection),
                (text("curl: (55) Failed sending data to the peer"), Connection),
                (
                    text("curl: (60) SSL certificate problem: unable to get local issuer certificate"),
                    Configuration,
                ),
                (
                    text("curl: (60) Peer certificate cannot be authenticated with known CA certificates"),
                    Configuration,
                ),
                (
                    text("curl: (51) SSL: no alternative certificate subject name matches target host name 'api.example.com'"),
                    Configuration,
                ),
                (
                    text("curl: (35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to api.openai.com:443"),
                    Connection,
                ),
                (
                    text("curl: (18) transfer closed with 1024 bytes remaining to read"),
                    Connection,
                ),
                (
                    text("curl: (18) Transferred a partial file"),
                    Connection,
                ),
                (
                    text("curl: (56) OpenSSL SSL_read: error:0A000126:SSL routines::unexpected eof while reading, errno 0"),
                    Connection,
                ),
                (
                    text("curl: (3) URL using bad/illegal format or missing URL"),
                    Configuration,
                ),
                (
                    text("curl: (1) Protocol \"htps\" not supported or disabled in libcurl"),
                    Configuration,
                ),
                (text("curl: (5) Could not resolve proxy: proxy.local"), Configuration),
                (text("curl: (5) Couldn't resolve proxy name"), Configuration),
                // Second sweep of the same catalog.
                (text("curl: (16) Error in the HTTP2 framing layer"), Connection),
                (text("curl: (60) SSL certificate problem: self-signed certificate in certificate chain"), Configuration),
                (text("curl: (60) SSL certificate problem: certificate has expired"), Configuration),
                (text("curl: (28) Resolving timed out after 5000 milliseconds"), Timeout),
                (text("curl: (28) Failed to connect to api.openai.com port 443 after 10002 ms: Timeout was reached"), Timeout),
                (text("curl: (56) Proxy CONNECT aborted"), Connection),
                (text("curl: (8) Weird server reply"), InvalidResponse),
                // CURLE_HTTP2_STREAM by its number (`tables::CURL_CODES`): a link fault.
                (text("curl: (92) HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR (err 2)"), Connection),
                // Third sweep.
                (text("curl: (7) Failed to connect to api.openai.com port 443 after 3 ms: Network is unreachable"), Connection),
                (text("curl: (35) Recv failure: Connection reset by peer"), Connection),
                (text("curl: (56) CONNECT tunnel failed, response 407"), Configuration),
                (text("curl: (77) error setting certificate verify locations:  CAfile: /etc/ssl/certs/ca-certificates.crt CApath: none"), Configuration),
                (text("curl: (18) end of response with 1234 bytes missing"), Connection),
                (text("curl: (92) Stream error in the HTTP/2 framing layer"), Connection),
                (text("curl: (28) SSL connection timeout"), Timeout),
                (text("curl: (22) The requested URL returned error: 429"), RateLimited),
                (text("curl: (22) The requested URL returned error: 503"), ServerError),
            ],
        );
    }

    /// CPython's own exceptions: http.client (Lib/http/client.py: `RemoteDisconnected("Remote
    /// end closed connection without response")`, `IncompleteRead`'s repr, `InvalidURL`), json
    /// (Lib/json/decoder.py's `JSONDecodeError` messages), ssl (`SSLCertVerificationError`,
    /// `SSLEOFError`, `SSLZeroReturnError` with OpenSSL's reason) and socket's errno texts.
    #[test]
    fn cpython_stdlib() {
        catalog(
            "cpython http.client/json/ssl/socket",
            vec![
                (
                    class("http.client.RemoteDisconnected", "Remote end closed connection without response"),
                    Connection,
                ),
                (
                    class("http.client.IncompleteRead", "IncompleteRead(1234 bytes read, 5678 more expected)"),
                    Connection,
                ),
                (
                    class("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"),
                    InvalidResponse,
                ),
                (
                    class("json.decoder.JSONDecodeError", "Unterminated string starting at: line 1 column 25 (char 24)"),
                    InvalidResponse,
                ),
                (
                    class("json.decoder.JSONDecodeError", "Extra data: line 1 column 5 (char 4)"),
                    InvalidResponse,
                ),
                (
                    class("json.decoder.JSONDecodeError", "Expecting ',' delimiter: line 1 column 30 (char 29)"),
                    InvalidResponse,
                ),
                (
                    class("json.decoder.JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
                    InvalidResponse,
                ),
                (
                    text("json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
                    InvalidResponse,
                ),
                (
                    class("ssl.SSLCertVerificationError", "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)"),
                    Configuration,
                ),
                (
                    class("ssl.SSLCertVerificationError", "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for 'api.openai.com'. (_ssl.c:1006)"),
                    Configuration,
                ),
                (
                    class("ssl.SSLEOFError", "[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1006)"),
                    Connection,
                ),
                (
                    class("ssl.SSLEOFError", "EOF occurred in violation of protocol (_ssl.c:2426)"),
                    Connection,
                ),
                (
                    class("ssl.SSLZeroReturnError", "TLS/SSL connection has been closed (EOF) (_ssl.c:1129)"),
                    Connection,
                ),
                (
                    class("socket.gaierror", "[Errno -2] Name or service not known"),
                    Configuration,
                ),
                (
                    class("socket.gaierror", "[Errno 8] nodename nor servname provided, or not known"),
                    Configuration,
                ),
                (
                    class("socket.gaierror", "[Errno -3] Temporary failure in name resolution"),
                    Connection,
                ),
                (class("TimeoutError", "timed out"), Timeout),
                (class("socket.timeout", "The read operation timed out"), Timeout),
                (
                    class("ConnectionRefusedError", "[Errno 111] Connection refused"),
                    Connection,
                ),
                (
                    class("ConnectionResetError", "[Errno 104] Connection reset by peer"),
                    Connection,
                ),
                (class("BrokenPipeError", "[Errno 32] Broken pipe"), Connection),
                (
                    class("ConnectionAbortedError", "[Errno 103] Software caused connection abort"),
                    Connection,
                ),
                (class("OSError", "[Errno 101] Network is unreachable"), Connection),
                (class("OSError", "[Errno 113] No route to host"), Connection),
                (
                    class("http.client.InvalidURL", "nonnumeric port: '11434/v1'"),
                    Configuration,
                ),
                // Second sweep of the same catalog.
                (class("ConnectionResetError", "[Errno 54] Connection reset by peer"), Connection),
                (class("TimeoutError", "[Errno 110] Connection timed out"), Timeout),
                (class("OSError", "[Errno 65] No route to host"), Connection),
                (class("ConnectionRefusedError", "[WinError 10061] No connection could be made because the target machine actively refused it"), Connection),
                (class("ConnectionResetError", "[WinError 10054] An existing connection was forcibly closed by the remote host"), Connection),
                // JSON no serializer writes: a model's own JSON (`output_form::MODEL_WRITTEN`).
                (class("json.decoder.JSONDecodeError", "Invalid control character at: line 1 column 20 (char 19)"), Validation),
                (class("json.decoder.JSONDecodeError", "Expecting ':' delimiter: line 1 column 10 (char 9)"), InvalidResponse),
                (class("asyncio.exceptions.TimeoutError", ""), Timeout),
                (class("ssl.SSLCertVerificationError", "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006)"), Configuration),
                (class("socket.gaierror", "[Errno 11001] getaddrinfo failed"), Configuration),
                // Third sweep.
                (text("urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>"), Configuration),
                (text("urllib.error.URLError: <urlopen error timed out>"), Timeout),
                (text("urllib.error.URLError: <urlopen error [Errno 111] Connection refused>"), Connection),
                (text("urllib.error.HTTPError: HTTP Error 429: Too Many Requests"), RateLimited),
                (text("urllib.error.HTTPError: HTTP Error 503: Service Unavailable"), ServerError),
            ],
        );
    }

    /// urllib3's, requests', httpx's and aiohttp's exceptions with the messages they build
    /// (urllib3 exceptions.py/connectionpool.py, requests exceptions.py/adapters.py, httpx
    /// _exceptions.py with httpcore's texts, aiohttp client_exceptions.py).
    #[test]
    fn python_http_clients() {
        let pool = "HTTPSConnectionPool(host='api.openai.com', port=443)";
        catalog(
            "urllib3/requests/httpx/aiohttp",
            vec![
                (
                    class("urllib3.exceptions.ProtocolError", "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))"),
                    Connection,
                ),
                (
                    class("urllib3.exceptions.ReadTimeoutError", &format!("{pool}: Read timed out. (read timeout=600)")),
                    Timeout,
                ),
                (
                    class("requests.exceptions.ConnectionError", &format!("{pool}: Max retries exceeded with url: /v1/chat/completions (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a>: Failed to establish a new connection: [Errno 111] Connection refused'))")),
                    Connection,
                ),
                (
                    class("requests.exceptions.SSLError", &format!("{pool}: Max retries exceeded with url: /v1/chat/completions (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)')))")),
                    Configuration,
                ),
                (
                    class("requests.exceptions.ChunkedEncodingError", "('Connection broken: IncompleteRead(0 bytes read, 512 more expected)', IncompleteRead(0 bytes read, 512 more expected))"),
                    Connection,
                ),
                (
                    class("requests.exceptions.ChunkedEncodingError", "(\"Connection broken: InvalidChunkLength(got length b'', 0 bytes read)\", InvalidChunkLength(got length b'', 0 bytes read))"),
                    Connection,
                ),
                (
                    class("requests.exceptions.ConnectTimeout", &format!("{pool}: Max retries exceeded with url: /v1/chat/completions (Caused by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object at 0x7f3a>, 'Connection to api.openai.com timed out. (connect timeout=10)'))")),
                    Timeout,
                ),
                (
                    class("requests.exceptions.ConnectionError", &format!("{pool}: Max retries exceeded with url: /v1/chat/completions (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7f3a>: Failed to resolve 'api.openai.com' ([Errno -3] Temporary failure in name resolution)\"))")),
                    Connection,
                ),
                (
                    class("requests.exceptions.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"),
                    InvalidResponse,
                ),
                (
                    class("requests.exceptions.MissingSchema", "Invalid URL 'api.openai.com/v1/chat/completions': No scheme supplied. Perhaps you meant https://api.openai.com/v1/chat/completions?"),
                    Configuration,
                ),
                (
                    class("requests.exceptions.InvalidSchema", "No connection adapters were found for 'localhost:11434/api/chat'"),
                    Configuration,
                ),
                (
                    class("requests.exceptions.ReadTimeout", &format!("{pool}: Read timed out. (read timeout=60)")),
                    Timeout,
                ),
                (class("httpx.ConnectError", "All connection attempts failed"), Connection),
                (class("httpx.ConnectError", "[Errno 111] Connection refused"), Connection),
                (class("httpx.ReadTimeout", ""), Timeout),
                (class("httpx.PoolTimeout", ""), Timeout),
                (class("httpx.ReadError", ""), Connection),
                (
                    class("httpx.RemoteProtocolError", "Server disconnected without sending a response."),
                    Connection,
                ),
                (
                    class("httpx.RemoteProtocolError", "peer closed connection without sending complete message body (incomplete chunked read)"),
                    Connection,
                ),
                (
                    class("httpx.UnsupportedProtocol", "Request URL is missing an 'http://' or 'https://' protocol."),
                    Configuration,
                ),
                (
                    class("httpx.ConnectError", "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)"),
                    Configuration,
                ),
                (
                    class("aiohttp.client_exceptions.ServerDisconnectedError", "Server disconnected"),
                    Connection,
                ),
                (
                    class("aiohttp.client_exceptions.ClientConnectorError", "Cannot connect to host api.openai.com:443 ssl:default [Connection refused]"),
                    Connection,
                ),
                (
                    class("aiohttp.client_exceptions.ClientConnectorError", "Cannot connect to host api.openai.com:443 ssl:default [Name or service not known]"),
                    Configuration,
                ),
                (
                    class("aiohttp.client_exceptions.ClientConnectorCertificateError", "Cannot connect to host api.openai.com:443 ssl:True [SSLCertVerificationError: (1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')]"),
                    Configuration,
                ),
                (
                    class("aiohttp.client_exceptions.ClientPayloadError", "Response payload is not completed: <TransferEncodingError: 400, message='Not enough data for satisfy transfer length header.'>"),
                    Connection,
                ),
                (
                    class("aiohttp.client_exceptions.ContentTypeError", "0, message='Attempt to decode JSON with unexpected mimetype: text/html; charset=utf-8', url='https://api.openai.com/v1/chat/completions'"),
                    InvalidResponse,
                ),
                (
                    class("aiohttp.client_exceptions.ServerTimeoutError", "Timeout on reading data from socket"),
                    Timeout,
                ),
                (
                    class("aiohttp.client_exceptions.ConnectionTimeoutError", "Connection timeout to host https://api.openai.com/v1/chat/completions"),
                    Timeout,
                ),
                (
                    class("aiohttp.client_exceptions.ClientOSError", "[Errno 104] Connection reset by peer"),
                    Connection,
                ),
                // Second sweep of the same catalog.
                (class("urllib3.exceptions.ProtocolError", "Response ended prematurely"), Connection),
                (class("requests.exceptions.ConnectionError", "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"), Connection),
                (class("requests.exceptions.ProxyError", "HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 407 Proxy Authentication Required')))"), Configuration),
                (class("httpx.WriteTimeout", ""), Timeout),
                (class("httpx.ConnectTimeout", ""), Timeout),
                (class("httpx.HTTPStatusError", "Server error '503 Service Unavailable' for url 'https://api.openai.com/v1/chat/completions'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503"), ServerError),
                (class("httpx.HTTPStatusError", "Client error '401 Unauthorized' for url 'https://api.openai.com/v1/chat/completions'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401"), Unauthorized),
                (class("aiohttp.client_exceptions.ClientResponseError", "429, message='Too Many Requests', url='https://api.openai.com/v1/chat/completions'"), RateLimited),
                (class("aiohttp.client_exceptions.ClientPayloadError", "Response payload is not completed: <ContentLengthError: 400, message='Not enough data for satisfy content length header.'>"), Connection),
                (class("aiohttp.client_exceptions.ClientConnectionResetError", "Cannot write to closing transport"), Connection),
                (class("aiohttp.client_exceptions.SocketTimeoutError", "Timeout on reading data from socket"), Timeout),
                (class("aiohttp.client_exceptions.ClientConnectorDNSError", "Cannot connect to host api.openai.com:443 ssl:default [Temporary failure in name resolution]"), Connection),
                (class("aiohttp.client_exceptions.InvalidUrlClientError", "/v1/chat/completions"), Configuration),
                // Third sweep.
                (class("httpx.RemoteProtocolError", "<StreamReset stream_id:1, error_code:ErrorCodes.INTERNAL_ERROR, remote_reset:True>"), Connection),
                (class("requests.exceptions.SSLError", "HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by SSLError(SSLEOFError(8, '[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1006)')))"), Connection),
                (class("requests.exceptions.ConnectionError", "('Connection aborted.', OSError(0, 'Error'))"), Connection),
                (class("urllib3.exceptions.LocationParseError", "Failed to parse: https://api.openai.com:xx/v1"), Configuration),
                (class("requests.exceptions.InvalidHeader", "Invalid leading whitespace, reserved character(s), or return character(s) in header value: 'Bearer REDACTED\\n'"), Configuration),
                (class("aiohttp.client_exceptions.ClientConnectorError", "Cannot connect to host localhost:11434 ssl:default [Multiple exceptions: [Errno 111] Connect call failed ('::1', 11434, 0, 0), [Errno 111] Connect call failed ('127.0.0.1', 11434)]"), Connection),
                (text("aiohttp.http_exceptions.TransferEncodingError: 400, message='Not enough data for satisfy transfer length header.'"), Connection),
                (class("aiohttp.client_exceptions.ClientPayloadError", "Response payload is not completed"), Connection),
            ],
        );
    }

    /// Node's clients as apps log them: undici's classes and default messages
    /// (lib/core/errors.js), `fetch failed` with its cause, Node's net/dns/tls codes
    /// (getaddrinfo ENOTFOUND / EAI_AGAIN, ECONNREFUSED, ECONNRESET, "socket hang up",
    /// certificate codes), node-fetch's `FetchError` texts and axios' `AxiosError` messages.
    #[test]
    fn node_clients() {
        catalog(
            "undici/node-fetch/axios/node net",
            vec![
                (
                    text("TypeError: fetch failed\n  [cause]: ConnectTimeoutError: Connect Timeout Error (attempted address: api.openai.com:443, timeout: 10000ms)"),
                    Timeout,
                ),
                (
                    text("HeadersTimeoutError: Headers Timeout Error"),
                    Timeout,
                ),
                (text("BodyTimeoutError: Body Timeout Error"), Timeout),
                (
                    text("TypeError: fetch failed\n  [cause]: SocketError: other side closed"),
                    Connection,
                ),
                (text("SocketError: other side closed"), Connection),
                // A body cut after it began: the client tables' convention (clients.rs, undici).
                (
                    text("ResponseContentLengthMismatchError: Response body length does not match content-length header"),
                    StreamInterrupted,
                ),
                (
                    text("TimeoutError: The operation was aborted due to timeout"),
                    Timeout,
                ),
                (
                    text("Error: getaddrinfo ENOTFOUND api.openai.com"),
                    Configuration,
                ),
                (
                    text("Error: getaddrinfo EAI_AGAIN api.openai.com"),
                    Connection,
                ),
                (
                    text("Error: connect ECONNREFUSED 127.0.0.1:11434"),
                    Connection,
                ),
                (text("Error: read ECONNRESET"), Connection),
                (text("Error: socket hang up"), Connection),
                (
                    text("Error: connect ETIMEDOUT 104.18.6.192:443"),
                    Timeout,
                ),
                (text("Error: write EPIPE"), Connection),
                (
                    text("Error: unable to verify the first certificate"),
                    Configuration,
                ),
                (
                    text("Error: self-signed certificate in certificate chain"),
                    Configuration,
                ),
                (
                    text("Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: Host: api.example.com. is not in the cert's altnames: DNS:*.other.com"),
                    Configuration,
                ),
                (
                    text("Error: Client network socket disconnected before secure TLS connection was established"),
                    Connection,
                ),
                (
                    text("FetchError: request to https://api.openai.com/v1/chat/completions failed, reason: connect ECONNREFUSED 127.0.0.1:443"),
                    Connection,
                ),
                (
                    text("FetchError: invalid json response body at https://api.openai.com/v1/chat/completions reason: Unexpected token < in JSON at position 0"),
                    InvalidResponse,
                ),
                (
                    text("FetchError: network timeout at: https://api.openai.com/v1/chat/completions"),
                    Timeout,
                ),
                (
                    text("AxiosError: timeout of 60000ms exceeded"),
                    Timeout,
                ),
                (text("AxiosError: Network Error"), Connection),
                (
                    text("SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON"),
                    InvalidResponse,
                ),
                (
                    text("SyntaxError: Unexpected end of JSON input"),
                    InvalidResponse,
                ),
                (
                    text("TypeError: Cannot read properties of undefined (reading 'choices')"),
                    Programming,
                ),
                // Second sweep of the same catalog.
                (text("Error: connect EHOSTUNREACH 10.0.0.5:443"), Connection),
                (text("Error: connect ENETUNREACH 2606:4700::6812:7c0:443"), Connection),
                (text("Error: read ETIMEDOUT"), Timeout),
                (text("Error: certificate has expired"), Configuration),
                (text("Error: unable to get local issuer certificate"), Configuration),
                (text("Error: self signed certificate"), Configuration),
                (text("TypeError: fetch failed\n  [cause]: Error: getaddrinfo ENOTFOUND api.openai.com"), Configuration),
                (text("TypeError: fetch failed\n  [cause]: Error: connect ECONNREFUSED 127.0.0.1:11434"), Connection),
                // Node's http client as `console.error` prints it: the code is the evidence,
                // the bare "aborted" says nothing a rule could read (left to the code).
                (text("Error: aborted\n    at connResetException (node:internal/errors:720:14) {\n  code: 'ECONNRESET'\n}"), Connection),
                (text("AxiosError: socket hang up"), Connection),
                (text("AxiosError: getaddrinfo ENOTFOUND api.openai.com"), Configuration),
                (text("AxiosError: Request failed with status code 429"), RateLimited),
                (text("AxiosError: Request failed with status code 502"), ServerError),
                (text("TypeError [ERR_INVALID_URL]: Invalid URL"), Configuration),
                (text("SyntaxError: JSON.parse: unexpected character at line 1 column 1 of the JSON data"), InvalidResponse),
                (text("SyntaxError: Expected property name or '}' in JSON at position 1"), InvalidResponse),
                (text("SyntaxError: Bad control character in string literal in JSON at position 10"), InvalidResponse),
                (text("ConnectTimeoutError: Connect Timeout Error"), Timeout),
                // Third sweep.
                (text("FetchError: request to https://api.openai.com/v1/chat/completions failed, reason: getaddrinfo ENOTFOUND api.openai.com"), Configuration),
                (text("FetchError: request to https://api.openai.com/v1/chat/completions failed, reason: socket hang up"), Connection),
                (text("DOMException [TimeoutError]: The operation was aborted due to timeout"), Timeout),
                (text("Error: connect ECONNREFUSED ::1:11434"), Connection),
                (text("TypeError: Failed to fetch"), Connection),
                (text("TypeError: NetworkError when attempting to fetch resource."), Connection),
                (text("AxiosError: unable to verify the first certificate"), Configuration),
                (text("AxiosError: Request failed with status code 401"), Unauthorized),
                (text("SyntaxError: Unexpected token 'd', \"data: {\"id\"... is not valid JSON"), InvalidResponse),
            ],
        );
    }

    /// Java's exceptions with the JDK's, OkHttp's, Jackson's and Gson's messages (java.net
    /// `SocketTimeoutException` "Read timed out"/"Connect timed out", `UnknownHostException`,
    /// `ConnectException`, javax.net.ssl's handshake texts, OkHttp's "timeout", "unexpected end
    /// of stream on", "stream was reset:", java.net.http's `HttpTimeoutException`).
    #[test]
    fn java_clients() {
        catalog(
            "java.net/javax.net.ssl/OkHttp/Jackson/Gson",
            vec![
                (text("java.net.SocketTimeoutException: Read timed out"), Timeout),
                (text("java.net.SocketTimeoutException: timeout"), Timeout),
                (text("java.net.SocketTimeoutException: Connect timed out"), Timeout),
                (text("java.net.ConnectException: Connection refused"), Connection),
                (
                    text("java.net.ConnectException: Failed to connect to api.openai.com/104.18.7.192:443"),
                    Connection,
                ),
                (
                    text("java.net.UnknownHostException: api.openai.com: Name or service not known"),
                    Configuration,
                ),
                (
                    text("java.net.UnknownHostException: Unable to resolve host \"api.openai.com\": No address associated with hostname"),
                    Configuration,
                ),
                (text("java.net.SocketException: Connection reset"), Connection),
                (
                    text("java.net.SocketException: Broken pipe (Write failed)"),
                    Connection,
                ),
                (
                    text("javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target"),
                    Configuration,
                ),
                (
                    text("javax.net.ssl.SSLHandshakeException: Remote host terminated the handshake"),
                    Connection,
                ),
                (
                    text("javax.net.ssl.SSLPeerUnverifiedException: Hostname api.example.com not verified"),
                    Configuration,
                ),
                (
                    text("java.io.IOException: unexpected end of stream on https://api.openai.com/..."),
                    Connection,
                ),
                (
                    text("okhttp3.internal.http2.StreamResetException: stream was reset: INTERNAL_ERROR"),
                    Connection,
                ),
                (
                    text("java.io.EOFException: \\n not found: limit=0 content=…"),
                    Connection,
                ),
                (
                    text("java.net.http.HttpTimeoutException: request timed out"),
                    Timeout,
                ),
                (
                    text("java.net.http.HttpConnectTimeoutException: HTTP connect timed out"),
                    Timeout,
                ),
                (
                    text("java.io.IOException: HTTP/1.1 header parser received no bytes"),
                    Connection,
                ),
                (
                    text("java.net.NoRouteToHostException: No route to host"),
                    Connection,
                ),
                (
                    text("com.fasterxml.jackson.core.JsonParseException: Unexpected character ('<' (code 60)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"),
                    InvalidResponse,
                ),
                (
                    text("com.fasterxml.jackson.databind.exc.MismatchedInputException: No content to map due to end-of-input"),
                    InvalidResponse,
                ),
                (
                    text("com.fasterxml.jackson.core.io.JsonEOFException: Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED; line: 1, column: 1])"),
                    InvalidResponse,
                ),
                (
                    text("com.google.gson.JsonSyntaxException: java.lang.IllegalStateException: Expected BEGIN_OBJECT but was STRING at line 1 column 1 path $"),
                    InvalidResponse,
                ),
                (
                    text("com.google.gson.stream.MalformedJsonException: Use JsonReader.setLenient(true) to accept malformed JSON at line 1 column 1 path $"),
                    InvalidResponse,
                ),
                // Second sweep of the same catalog.
                (text("java.net.SocketException: Connection reset by peer"), Connection),
                (text("java.net.SocketException: Unexpected end of file from server"), Connection),
                (text("java.io.IOException: Premature EOF"), Connection),
                (text("java.io.InterruptedIOException: timeout"), Timeout),
                (text("java.net.SocketTimeoutException: failed to connect to api.openai.com/104.18.6.192 (port 443) from /10.0.2.16 (port 43210) after 10000ms"), Timeout),
                (text("javax.net.ssl.SSLException: Connection reset"), Connection),
                (text("javax.net.ssl.SSLHandshakeException: No subject alternative DNS name matching api.example.com found."), Configuration),
                (text("java.net.ProtocolException: unexpected end of stream"), Connection),
                (text("java.net.UnknownHostException: api.openai.com"), Configuration),
                (text("java.nio.channels.UnresolvedAddressException"), Configuration),
                (text("com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot deserialize value of type `com.example.ChatResponse` from Array value (token `JsonToken.START_ARRAY`)"), InvalidResponse),
                (text("com.fasterxml.jackson.core.JsonParseException: Unexpected end-of-input in VALUE_STRING"), InvalidResponse),
                (text("com.google.gson.JsonSyntaxException: java.io.EOFException: End of input at line 1 column 1 path $"), InvalidResponse),
                (text("okhttp3.internal.http2.ConnectionShutdownException"), Connection),
                // Third sweep.
                (text("java.net.ConnectException: Connection timed out: connect"), Timeout),
                (text("java.net.SocketException: Network is unreachable (connect failed)"), Connection),
                (text("javax.net.ssl.SSLHandshakeException: java.security.cert.CertPathValidatorException: Trust anchor for certification path not found."), Configuration),
                (text("java.lang.IllegalArgumentException: Expected URL scheme 'http' or 'https' but no scheme was found for api.op..."), Configuration),
                (text("io.ktor.client.plugins.HttpRequestTimeoutException: Request timeout has expired [url=https://api.openai.com/v1/chat/completions, request_timeout=60000 ms]"), Timeout),
                (text("io.ktor.client.network.sockets.ConnectTimeoutException: Connect timeout has expired [url=https://api.openai.com/v1/chat/completions, connect_timeout=unknown ms]"), Timeout),
                (text("retrofit2.HttpException: HTTP 429 "), RateLimited),
            ],
        );
    }

    /// .NET's HttpClient, sockets and JSON readers (System.Net.Http's SR strings: "No such host
    /// is known.", "The response ended prematurely.", "The request was canceled due to the
    /// configured HttpClient.Timeout of N seconds elapsing.", "The SSL connection could not be
    /// established"; System.Text.Json's and Newtonsoft's reader messages).
    #[test]
    fn dotnet_clients() {
        catalog(
            ".NET HttpClient/SocketException/System.Text.Json",
            vec![
                (
                    class("System.Net.Http.HttpRequestException", "No such host is known. (api.openai.com:443)"),
                    Configuration,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "Name or service not known (api.openai.com:443)"),
                    Configuration,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "Connection refused (localhost:11434)"),
                    Connection,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "Resource temporarily unavailable (api.openai.com:443)"),
                    Connection,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "An error occurred while sending the request. Unable to read data from the transport connection: An existing connection was forcibly closed by the remote host.."),
                    Connection,
                ),
                (
                    class("System.Threading.Tasks.TaskCanceledException", "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing."),
                    Timeout,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "The SSL connection could not be established, see inner exception. The remote certificate is invalid according to the validation procedure: RemoteCertificateNameMismatch"),
                    Configuration,
                ),
                (
                    class("System.IO.IOException", "The response ended prematurely."),
                    Connection,
                ),
                (
                    class("System.Net.Http.HttpIOException", "The response ended prematurely, with at least 512 additional bytes expected. (ResponseEnded)"),
                    Connection,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "Error while copying content to a stream."),
                    Connection,
                ),
                (
                    class("System.Net.Sockets.SocketException", "Connection reset by peer"),
                    Connection,
                ),
                (
                    class("System.Net.Http.HttpRequestException", "The HTTP/2 server sent invalid data on the connection. HTTP/2 error code 'PROTOCOL_ERROR' (0x1). (HttpProtocolError)"),
                    Connection,
                ),
                (
                    class("System.Text.Json.JsonException", "'<' is an invalid start of a value. Path: $ | LineNumber: 0 | BytePositionInLine: 0."),
                    InvalidResponse,
                ),
                (
                    class("System.Text.Json.JsonException", "The input does not contain any JSON tokens. Expected the input to start with a valid JSON token, while reading the input. Path: $ | LineNumber: 0 | BytePositionInLine: 0."),
                    InvalidResponse,
                ),
                (
                    class("System.Text.Json.JsonException", "Expected depth to be zero at the end of the JSON payload. There is an open JSON object or array that should be closed. Path: $ | LineNumber: 0 | BytePositionInLine: 120."),
                    InvalidResponse,
                ),
                (
                    class("Newtonsoft.Json.JsonReaderException", "Unexpected character encountered while parsing value: <. Path '', line 0, position 0."),
                    InvalidResponse,
                ),
                (
                    class("System.InvalidOperationException", "An invalid request URI was provided. Either the request URI must be an absolute URI or BaseAddress must be set."),
                    Configuration,
                ),
                // Second sweep of the same catalog.
                (class("System.Net.Sockets.SocketException", "No connection could be made because the target machine actively refused it. (localhost:11434)"), Connection),
                (class("System.Net.Sockets.SocketException", "A connection attempt failed because the connected party did not properly respond after a period of time, or established connection failed because connected host has failed to respond."), Timeout),
                (class("System.IO.IOException", "Unable to read data from the transport connection: Connection reset by peer."), Connection),
                (class("System.Net.Http.HttpRequestException", "Response status code does not indicate success: 429 (Too Many Requests)."), RateLimited),
                (class("System.Net.Http.HttpRequestException", "Response status code does not indicate success: 503 (Service Unavailable)."), ServerError),
                (class("System.Security.Authentication.AuthenticationException", "The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot"), Configuration),
                (class("System.Text.Json.JsonException", "The JSON value could not be converted to System.String. Path: $.choices[0].message.content | LineNumber: 0 | BytePositionInLine: 120."), InvalidResponse),
                (class("System.Net.Http.HttpRequestException", "The proxy tunnel request to proxy 'http://proxy:8080/' failed with status code '407'."), Configuration),
                (class("System.UriFormatException", "Invalid URI: The format of the URI could not be determined."), Configuration),
                (class("System.Net.Http.HttpRequestException", "Name does not resolve (api.openai.com:443)"), Configuration),
                (class("System.Net.Http.HttpRequestException", "The response ended prematurely while waiting for the next frame from the server."), Connection),
                // Third sweep.
                (text("System.Net.Sockets.SocketException (11001): No such host is known."), Configuration),
                (text("System.Net.Sockets.SocketException (10054): An existing connection was forcibly closed by the remote host."), Connection),
                (text("System.Net.WebException: The operation has timed out."), Timeout),
                (text("System.Net.WebException: The remote name could not be resolved: 'api.openai.com'"), Configuration),
                (text("System.Net.WebException: The underlying connection was closed: An unexpected error occurred on a send."), Connection),
                (text("System.Net.WebException: Unable to connect to the remote server"), Connection),
                (text("Polly.Timeout.TimeoutRejectedException: The delegate executed asynchronously through TimeoutPolicy did not complete within the timeout."), Timeout),
                (text("System.Net.Http.HttpRequestException: Received an invalid status line: '<html>'."), InvalidResponse),
            ],
        );
    }

    /// Ruby's Net::HTTP (net/protocol.rb's `Net::ReadTimeout`, "Failed to open TCP connection
    /// to host:port (reason)"), Errno and socket errors, OpenSSL's `SSL_connect returned=1
    /// ... certificate verify failed`, the json gem's `JSON::ParserError` and Faraday's error
    /// classes wrapping them.
    #[test]
    fn ruby_clients() {
        catalog(
            "Net::HTTP/OpenSSL/JSON/Faraday",
            vec![
                (
                    class("Net::ReadTimeout", "Net::ReadTimeout with #<TCPSocket:(closed)>"),
                    Timeout,
                ),
                (class("Net::OpenTimeout", "execution expired"), Timeout),
                (class("Net::WriteTimeout", "Net::WriteTimeout"), Timeout),
                (
                    class("Errno::ECONNREFUSED", "Failed to open TCP connection to localhost:11434 (Connection refused - connect(2) for \"localhost\" port 11434)"),
                    Connection,
                ),
                (class("Errno::ECONNRESET", "Connection reset by peer"), Connection),
                (class("Errno::EPIPE", "Broken pipe"), Connection),
                (
                    class("Errno::EHOSTUNREACH", "No route to host - connect(2) for 10.0.0.5:443"),
                    Connection,
                ),
                (
                    class("SocketError", "Failed to open TCP connection to api.openai.com:443 (getaddrinfo: Name or service not known)"),
                    Configuration,
                ),
                (
                    class("Socket::ResolutionError", "Failed to open TCP connection to api.openai.com:443 (getaddrinfo: Temporary failure in name resolution)"),
                    Connection,
                ),
                (class("EOFError", "end of file reached"), Connection),
                (
                    class("OpenSSL::SSL::SSLError", "SSL_connect returned=1 errno=0 peeraddr=104.18.7.192:443 state=error: certificate verify failed (unable to get local issuer certificate)"),
                    Configuration,
                ),
                (
                    class("OpenSSL::SSL::SSLError", "SSL_read: unexpected eof while reading"),
                    Connection,
                ),
                (
                    class("JSON::ParserError", "unexpected token at '<!DOCTYPE html>'"),
                    InvalidResponse,
                ),
                (
                    class("JSON::ParserError", "unexpected character: '<!DOCTYPE' at line 1 column 1"),
                    InvalidResponse,
                ),
                (
                    class("JSON::ParserError", "unexpected end of input"),
                    InvalidResponse,
                ),
                (
                    class("Faraday::ConnectionFailed", "Failed to open TCP connection to api.openai.com:443 (Connection refused - connect(2) for \"api.openai.com\" port 443)"),
                    Connection,
                ),
                (class("Faraday::TimeoutError", "Net::ReadTimeout"), Timeout),
                (
                    class("Faraday::SSLError", "SSL_connect returned=1 errno=0 peeraddr=10.0.0.5:443 state=error: certificate verify failed (self-signed certificate in certificate chain)"),
                    Configuration,
                ),
                (
                    class("Faraday::ParsingError", "859: unexpected token at '<html>'"),
                    InvalidResponse,
                ),
                (
                    class("Net::HTTPBadResponse", "wrong status line: \"<html>\""),
                    InvalidResponse,
                ),
                // Second sweep of the same catalog.
                (class("Errno::ETIMEDOUT", "Connection timed out - connect(2) for \"api.openai.com\" port 443"), Timeout),
                (class("Net::OpenTimeout", "Failed to open TCP connection to api.openai.com:443 (execution expired)"), Timeout),
                (class("Errno::ENETUNREACH", "Failed to open TCP connection to api.openai.com:443 (Network is unreachable - connect(2) for \"api.openai.com\" port 443)"), Connection),
                (class("OpenSSL::SSL::SSLError", "SSL_connect returned=1 errno=0 peeraddr=104.18.7.192:443 state=error: certificate verify failed (certificate has expired)"), Configuration),
                (class("OpenSSL::SSL::SSLError", "SSL_connect SYSCALL returned=5 errno=0 peeraddr=104.18.7.192:443 state=SSLv3/TLS write client hello"), Connection),
                (class("OpenSSL::SSL::SSLError", "hostname \"api.example.com\" does not match the server certificate"), Configuration),
                (class("Faraday::ConnectionFailed", "end of file reached"), Connection),
                (class("Faraday::ServerError", "the server responded with status 503"), ServerError),
                (class("Faraday::TooManyRequestsError", "the server responded with status 429"), RateLimited),
                (class("JSON::ParserError", "859: unexpected token at ''"), InvalidResponse),
                // Third sweep.
                (text("Errno::ECONNREFUSED: Connection refused - connect(2) for 127.0.0.1:11434"), Connection),
                (class("Faraday::SSLError", "SSL_connect returned=1 errno=0 peeraddr=10.0.0.5:443 state=error: certificate verify failed (hostname mismatch)"), Configuration),
                (class("Faraday::ConnectionFailed", "Connection refused - connect(2) for \"localhost\" port 11434 (localhost:11434)"), Connection),
                (class("Faraday::ResourceNotFound", "the server responded with status 404"), NotFound),
                (class("Faraday::UnauthorizedError", "the server responded with status 401"), Unauthorized),
                (text("Net::HTTP::Persistent::Error: too many connection resets (due to Connection reset by peer - Errno::ECONNRESET) after 0 requests on 1234, last used 1.5 seconds ago"), Connection),
                (text("Timeout::Error: execution expired"), Timeout),
                (class("Socket::ResolutionError", "getaddrinfo: nodename nor servname provided, or not known"), Configuration),
                (class("Faraday::ParsingError", "809: unexpected token at 'data: {\"id\":\"chatcmpl-1\"'"), InvalidResponse),
            ],
        );
    }

    /// The catalogs' messages as wrappers carry them, and near misses that must keep their
    /// decision: go-openai's "error, status code: N, ..., message: <decoder error>" (its
    /// `RequestError`/`APIError` Display) is the status's; a Go server's 400 about JSON it could
    /// not read is the request's; a server's own 503 saying "temporarily unavailable" stays
    /// the server's; curl's empty reply under an app's prefix is still the link.
    #[test]
    fn wrapped_messages_and_near_misses() {
        catalog(
            "wrapped and near misses",
            vec![
                (
                    text("error, status code: 502, status: 502 Bad Gateway, message: invalid character '<' looking for beginning of value, body: <html><head><title>502 Bad Gateway</title></head></html>"),
                    ServerError,
                ),
                (
                    Failure::http(400, "invalid character '}' looking for beginning of object key string"),
                    BadRequest,
                ),
                (
                    Failure::http(503, "Resource temporarily unavailable"),
                    ServerError,
                ),
                (text("llm call failed: Empty reply from server"), Connection),
                (text("Error: Empty reply from server"), Connection),
                (
                    text("ollama: Post \"http://127.0.0.1:11434/api/chat\": EOF"),
                    Connection,
                ),
                (
                    text("error, status code: 200, status: 200 OK, message: unexpected end of JSON input"),
                    InvalidResponse,
                ),
                (
                    Failure::http(429, "Resource temporarily unavailable, rate limit reached"),
                    RateLimited,
                ),
            ],
        );
    }
}
