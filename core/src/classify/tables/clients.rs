//! Transport failures of HTTP clients, as their text names them: each table is one client's (or
//! runtime's) published list of error names, codes or messages, read from its documentation or
//! source, one fact a row. A JavaScript, Go, Java, .NET, Elixir or Ruby client's failure reaches
//! us only as a logged string, so these rows are phrases, matched as whole words in lower-cased
//! text (`text::transient`, `text::permanent`, `text::network` compile them with the rest).
//!
//! How a row is decided (CONTRACT §2): a failure of the network or of the far end that may pass
//! is `connection` or `timeout`; a failure that the same request meets again (a name that does
//! not resolve, a certificate, a wrong scheme, a bad argument) is `configuration` or
//! `programming`; an answer that cannot be read is `invalid_response`. Where a name covers both
//! (an SSL handshake that failed), the row is transient and a certificate's own words, read first
//! as permanent phrases, decide.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// One client's list of failure names.
pub struct ClientTable {
    /// The client, library or runtime.
    pub client: &'static str,
    /// Where the list is published (documentation page or source file).
    pub source: &'static str,
    /// One fact a row: a name or message the client prints, lower-case.
    pub rows: &'static [Phrase],
}

/// Every client table, the error numbers first (the most specific words a failure prints).
/// Within the transient and network phrase sets these rows come before the main tables' broad
/// words ("connection failed" inside .NET's timeout message); within the permanent set, after.
pub const TABLES: &[ClientTable] = &[
    ClientTable {
        client: "Windows Sockets error numbers (Python's [WinError N], .NET's SocketException (N))",
        source: "learn.microsoft.com/windows/win32/winsock/windows-sockets-error-codes-2",
        rows: &[
            // The number is printed whatever the language of the words after it ("[WinError
            // 10054] 远程主机强迫关闭了一个现有的连接。"): it decides where the words cannot.
            said("[winerror 10050]", Connection), // network is down
            said("[errno 10050]", Connection),
            said("socketexception (10050)", Connection),
            said("[winerror 10051]", Connection), // network unreachable
            said("[errno 10051]", Connection),
            said("socketexception (10051)", Connection),
            said("[winerror 10052]", Connection), // network dropped connection on reset
            said("[errno 10052]", Connection),
            said("socketexception (10052)", Connection),
            said("[winerror 10053]", Connection), // connection aborted by the host's software
            said("[errno 10053]", Connection),
            said("socketexception (10053)", Connection),
            said("[winerror 10054]", Connection), // connection reset by peer
            said("[errno 10054]", Connection),
            said("socketexception (10054)", Connection),
            said("[winerror 10060]", Timeout), // connection timed out
            said("[errno 10060]", Timeout),
            said("socketexception (10060)", Timeout),
            said("[winerror 10061]", Connection), // connection refused
            said("[errno 10061]", Connection),
            said("socketexception (10061)", Connection),
            said("[winerror 10064]", Connection), // host is down
            said("[errno 10064]", Connection),
            said("socketexception (10064)", Connection),
            said("[winerror 10065]", Connection), // no route to host
            said("[errno 10065]", Connection),
            said("socketexception (10065)", Connection),
            said("[winerror 11001]", Configuration), // host not found
            said("[errno 11001]", Configuration),
            said("socketexception (11001)", Configuration),
            said("[winerror 11002]", Connection), // non-authoritative host not found: try again
            said("[errno 11002]", Connection),
            said("socketexception (11002)", Connection),
            said("[winerror 11004]", Configuration), // valid name, no data record
            said("[errno 11004]", Configuration),
            said("socketexception (11004)", Configuration),
            // (batch 24) The same numbers as Rust's io::Error prints them ("Connection reset by
            // peer (os error 10054)", std's Display: "{description} (os error {code})") and by
            // their Winsock names (WSAECONNRESET, WSAETIMEDOUT... in Go's, Java's and C's logs).
            said("(os error 10053)", Connection),
            said("(os error 10054)", Connection),
            said("(os error 10060)", Timeout),
            said("(os error 10061)", Connection),
            said("(os error 10065)", Connection),
            said("wsaeconnaborted", Connection),
            said("wsaeconnreset", Connection),
            said("wsaetimedout", Timeout),
            said("wsaeconnrefused", Connection),
            said("wsaehostunreach", Connection),
            said("wsaenetunreach", Connection),
        ],
    },
    ClientTable {
        client: "Linux errno and getaddrinfo numbers, as Python prints them ([Errno N])",
        source: "man7.org/linux/man-pages/man3/errno.3.html; glibc resolv/netdb.h (EAI_*)",
        rows: &[
            said("[errno 104]", Connection), // ECONNRESET
            said("[errno 111]", Connection), // ECONNREFUSED
            said("[errno 110]", Timeout), // ETIMEDOUT
            said("[errno 32]", Connection), // EPIPE
            said("[errno 113]", Connection), // EHOSTUNREACH
            said("[errno 101]", Connection), // ENETUNREACH
            said("[errno 103]", Connection), // ECONNABORTED
            said("[errno -2]", Configuration), // EAI_NONAME: the name does not exist
            said("[errno -3]", Connection), // EAI_AGAIN: the resolver failed for now
            said("[errno -5]", Configuration), // EAI_NODATA: no address for the name
        ],
    },
    ClientTable {
        client: "macOS / BSD errno numbers ([Errno N])",
        source: "developer.apple.com (sys/errno.h, intro(2))",
        rows: &[
            said("[errno 54]", Connection), // ECONNRESET
            said("[errno 61]", Connection), // ECONNREFUSED
            said("[errno 60]", Timeout), // ETIMEDOUT
        ],
    },
    ClientTable {
        client: "Node.js (libuv system errors, Node error codes)",
        source: "nodejs.org/api/errors.html (Common system errors; Node.js error codes)",
        rows: &[
            said("econnaborted", Connection),
            said("ehostunreach", Connection),
            said("enetunreach", Connection),
            said("enetdown", Connection),
            said("ehostdown", Connection),
            said("epipe", Connection),
            said("eproto", Connection),
            said("esockettimedout", Timeout), // request / got: a socket idle past its timeout
            said("econnrefused", Connection),
            said("econnreset", Connection),
            said("etimedout", Timeout),
            // getaddrinfo: the name does not exist (EAI_NONAME, ENOTFOUND) or failed for good
            // (EAI_FAIL); EAI_AGAIN, a failure for now, is the main table's.
            said("enotfound", Configuration),
            said("eai_noname", Configuration),
            said("eai_fail", Configuration),
            said("err_socket_connection_timeout", Timeout),
            said("err_http2_stream_error", Connection),
            said("err_http2_goaway_session", Connection),
            said("err_http2_session_error", Connection),
            said("err_http2_stream_cancel", Connection),
            said("err_http2_invalid_session", Connection),
            // TLS verification codes of Node's tls module: the peer's certificate, every time.
            said("err_tls_cert_altname_invalid", Configuration),
            said("unable_to_verify_leaf_signature", Configuration),
            said("self_signed_cert_in_chain", Configuration),
            said("depth_zero_self_signed_cert", Configuration),
            said("cert_has_expired", Configuration),
            said("unable_to_get_issuer_cert_locally", Configuration),
            said("err_invalid_url", Configuration),
            said("err_invalid_arg_type", Programming),
            said("err_invalid_arg_value", Programming),
        ],
    },
    ClientTable {
        client: "undici (Node's fetch)",
        source: "github.com/nodejs/undici docs/docs/api/Errors.md",
        rows: &[
            said("und_err_connect_timeout", Timeout),
            said("und_err_headers_timeout", Timeout),
            said("und_err_body_timeout", Timeout),
            said("und_err_socket_timeout", Timeout),
            said("und_err_closed", Connection), // a client closed under the request
            said("und_err_destroyed", Connection),
            // The body ended before its content-length: a cut mid-body.
            said("und_err_res_content_length_mismatch", StreamInterrupted),
            said("und_err_headers_overflow", InvalidResponse),
            said("und_err_res_exceeded_max_size", InvalidResponse),
            said("und_err_prx_tls", Connection),
            said("und_err_not_supported", Configuration),
            said("und_err_invalid_arg", Programming),
            said("und_err_invalid_return_value", Programming),
            said("und_err_req_content_length_mismatch", Programming),
            // The error classes' names, as `${name}: ${message}` prints them.
            said("connecttimeouterror", Timeout),
            said("headerstimeouterror", Timeout),
            said("bodytimeouterror", Timeout),
            said("socketerror: other side closed", Connection),
            // The two mismatch errors' messages (lib/core/errors.js).
            said("response body length does not match content-length header", StreamInterrupted),
            said("request body length does not match content-length header", Programming),
        ],
    },
    ClientTable {
        client: "Go net/http, net, crypto/tls, x/net/http2",
        source: "go.dev/src/net/http/transport.go, h2_bundle.go, net/dnsclient_unix.go, crypto/x509/verify.go",
        rows: &[
            said("tls handshake timeout", Timeout), // net/http: TLS handshake timeout
            said("timeout awaiting response headers", Timeout),
            said("client.timeout exceeded", Timeout),
            said("transport connection broken", Connection), // net/http: HTTP/1.x transport connection broken
            said("http2: client connection lost", Connection),
            said("client connection force closed", Connection),
            said("http2: server sent goaway", Connection),
            said("no route to host", Connection),
            said("server misbehaving", Connection), // the resolver answered SERVFAIL: for now
            said("i/o timeout", Timeout),
            said("read: connection reset by peer", Connection),
            // The peer spoke another protocol or scheme: the configured URL is wrong.
            said("server gave http response to https client", Configuration),
            said("malformed http response", Configuration),
            said("unsupported protocol scheme", Configuration),
            said("no host in request url", Configuration),
            said("x509: certificate", Configuration),
            said("tls: failed to verify certificate", Configuration),
            said("x509: cannot validate certificate", Configuration),
        ],
    },
    ClientTable {
        client: ".NET System.Net.Http / System.Net.Sockets",
        source: "learn.microsoft.com/dotnet/api/system.net.http.httprequesterror, system.net.sockets.socketerror",
        rows: &[
            // HttpRequestError names, as logs print the property.
            said("nameresolutionerror", Connection), // the resolver's own words decide (see module doc)
            said("secureconnectionerror", Connection),
            said("httpprotocolerror", Connection),
            said("proxytunnelerror", Connection),
            said("responseended", Connection),
            said("versionnegotiationerror", Configuration),
            said("extendedconnectnotsupported", Configuration),
            said("userauthenticationerror", Unauthorized),
            said("configurationlimitexceeded", InvalidResponse),
            // SocketError names.
            said("connectionreset", Connection),
            said("connectionrefused", Connection),
            said("connectionaborted", Connection),
            said("hostunreachable", Connection),
            said("networkunreachable", Connection),
            said("networkdown", Connection),
            said("hostnotfound", Configuration),
            said("timedout", Timeout),
            // Messages of SocketException / HttpRequestException / HttpIOException.
            said("did not properly respond after a period of time", Timeout),
            said("no such host is known", Configuration),
            said("the response ended prematurely", Connection),
            said("server reset the stream", Connection), // The HTTP/2 server reset the stream
            said("server sent invalid data on the connection", Connection),
            said("http/2 server closed the connection", Connection),
            said("error while copying content to a stream", Connection),
            said("remote certificate is invalid", Configuration),
            said("httpioexception", Connection),
            // (batch 22) SR.net_http_proxy_tunnel_returned_failure_status_code: "The proxy tunnel
            // request to proxy '{0}' failed with status code '{1}'." (dotnet/runtime
            // System.Net.Http Strings.resx; microsoft/chat-copilot#313 with '503'): the CONNECT
            // never reached the provider. A proxy's 407 says its credentials (read first).
            said("failed with status code '407'", Configuration),
            said("proxy tunnel request to proxy", Connection),
        ],
    },
    ClientTable {
        client: "Java (java.net, javax.net.ssl, java.net.http), OkHttp, Apache HttpClient, Reactor Netty, Spring",
        source: "docs.oracle.com/en/java/javase/21/docs/api (java.net, java.net.http, javax.net.ssl); square.github.io/okhttp (okhttp3.internal.http2.StreamResetException)",
        rows: &[
            said("sockettimeoutexception", Timeout),
            said("httptimeoutexception", Timeout),
            said("httpconnecttimeoutexception", Timeout),
            said("connectexception", Connection),
            said("noroutetohostexception", Connection),
            said("socketexception", Connection),
            said("eofexception", Connection),
            said("connectionshutdownexception", Connection),
            said("streamresetexception", Connection),
            said("stream was reset", Connection), // OkHttp: stream was reset: REFUSED_STREAM
            said("prematurecloseexception", Connection),
            said("nohttpresponseexception", Connection),
            said("failed to respond", Connection), // Apache: The target server failed to respond
            said("i/o error on", Connection), // Spring: I/O error on POST request for "...": ...
            said("unknownhostexception", Configuration),
            said("unable to resolve host", Configuration), // Android: no address for the name
            said("pkix path building failed", Configuration),
            said("unable to find valid certification path", Configuration),
            said("sslhandshakeexception", Connection),
            said("httprequesttimeoutexception", Timeout), // Ktor
        ],
    },
    ClientTable {
        client: "Elixir Mint / Finch / Req",
        source: "github.com/elixir-mint/mint lib/mint/transport_error.ex, lib/mint/http_error.ex; github.com/sneako/finch lib/finch/transport_error.ex",
        rows: &[
            said("socket closed", Connection), // Mint.TransportError reason :closed
            said(":nxdomain", Configuration),  // an inet posix reason: the name does not exist
            said(":closed", Connection),
            said("server_closed_request", Connection),
            said("server_closed_connection", Connection),
            said("closed_for_writing", Connection),
            said("protocol_not_negotiated", Configuration),
            said(":connect_timeout", Timeout), // hackney
            said(":recv_timeout", Timeout),
        ],
    },
    ClientTable {
        client: "Ruby Net::HTTP, Errno, OpenSSL, http.rb, Excon",
        source: "docs.ruby-lang.org/en/3.3/Net/HTTP.html, Errno, OpenSSL::SSL; github.com/httprb/http lib/http/errors.rb; github.com/excon/excon lib/excon/error.rb",
        rows: &[
            said("end of file reached", Connection), // EOFError from a socket the server closed
            said("ssl_connect syscall", Connection), // SSL_connect SYSCALL returned=5 errno=0
            said("wrong status line", InvalidResponse), // Net::HTTPBadResponse
            said("http::connectionerror", Connection),
            said("http::timeouterror", Timeout),
            said("http::timeout", Timeout),
            said("excon::error::socket", Connection),
        ],
    },
    ClientTable {
        client: "Python urllib3, httpcore / httpx, aiohttp, websockets (printed as text)",
        source: "urllib3.readthedocs.io (urllib3.exceptions), www.python-httpx.org/exceptions, docs.aiohttp.org client_reference (Client exceptions), websockets.readthedocs.io (exceptions)",
        rows: &[
            said("newconnectionerror", Connection),
            said("readtimeouterror", Timeout),
            said("connecttimeouterror", Timeout),
            said("incompleteread", Connection),
            said("invalidchunklength", Connection),
            said("invalid chunk length", Connection),
            said("protocolerror", Connection),
            said("connecterror", Connection),
            said("readerror", Connection),
            said("writeerror", Connection),
            said("connecttimeout", Timeout),
            said("readtimeout", Timeout),
            said("writetimeout", Timeout),
            said("pooltimeout", Timeout),
            said("cannot connect to host", Connection), // aiohttp ClientConnectorError
            said("clientconnectorerror", Connection),
            said("clientoserror", Connection),
            said("clientpayloaderror", Connection),
            said("servertimeouterror", Timeout),
            said("serverdisconnectederror", Connection),
            said("not enough data for satisfy", Connection), // aiohttp: a body cut short of its length
            said("connectionclosederror", Connection), // websockets: closed without a normal close
            said("did not receive a valid http response", Connection), // websockets InvalidMessage
        ],
    },
    ClientTable {
        client: "OpenSSL / BoringSSL error reasons",
        source: "github.com/openssl/openssl crypto/err/openssl.txt (SSL reasons); boringssl.googlesource.com/boringssl include/openssl/ssl.h (SSL_R_*, SSL_ERROR_*)",
        rows: &[
            said("certificate_verify_failed", Configuration),
            said("certificate verify failed", Configuration),
            said("tlsv1 alert unknown ca", Configuration),
            said("tlsv1_alert_unknown_ca", Configuration),
            said("sslv3 alert handshake failure", Configuration),
            said("sslv3_alert_handshake_failure", Configuration),
            said("tlsv1 alert protocol version", Configuration),
            said("tlsv1_alert_protocol_version", Configuration),
            said("unsupported protocol", Configuration),
            said("wrong_version_number", Configuration),
            said("unknown protocol", Configuration), // plain HTTP on the other end
            said("unexpected_eof_while_reading", Connection),
            said("unexpected eof while reading", Connection),
            said("ssl_error_syscall", Connection),
            said("ssl_error_zero_return", Connection),
            said("decryption failed or bad record mac", Connection),
            said("bad_record_mac", Connection),
            said("bad record mac", Connection),
        ],
    },
    ClientTable {
        client: "HTTP/2 error codes (RST_STREAM / GOAWAY), as h2, OkHttp, .NET and grpc print them",
        source: "www.rfc-editor.org/rfc/rfc9113 §7 (Error Codes)",
        rows: &[
            said("protocol_error", Connection),
            said("flow_control_error", Connection),
            said("settings_timeout", Timeout),
            said("stream_closed", Connection),
            said("frame_size_error", Connection),
            // The server did not process the stream at all: safe to send again (§8.7).
            said("refused_stream", Connection),
            said("compression_error", Connection),
            said("connect_error", Connection),
            // The peer says we are generating excessive load: a rate limit in HTTP/2's words.
            said("enhance_your_calm", RateLimited),
            said("inadequate_security", Configuration),
            said("http_1_1_required", Configuration),
        ],
    },
    ClientTable {
        client: "Rust hyper / hyper-util / reqwest (Display of their errors)",
        source: "github.com/hyperium/hyper src/error.rs (Kind descriptions); github.com/hyperium/hyper-util src/client/legacy/connect/http.rs",
        rows: &[
            said("connection closed before message completed", Connection), // IncompleteMessage
            said("incompletemessage", Connection),
            said("received unexpected message from connection", Connection),
            said("channel closed", Connection),
            // The body broke off mid-way: the stream, not the request, failed.
            said("error reading a body from connection", StreamInterrupted),
            said("error writing a body to connection", Connection),
            said("error trying to connect", Connection),
            said("tcp connect error", Connection),
            said("http2 error", Connection),
            said("end of file before message length reached", Connection),
            // (batch 22) The Debug form reqwest prints ("hyper::Error(ChannelClosed)",
            // reqwest#1808) and the dispatcher's other words ("dispatch task is gone": the
            // connection task ended before the request was sent).
            said("channelclosed", Connection),
            said("dispatch task is gone", Connection),
            said("dispatchgone", Connection),
        ],
    },
    ClientTable {
        client: "Python http.client, ssl, asyncio and built-in exception names (printed as text)",
        source: "docs.python.org/3/library/http.client.html (exceptions); docs.python.org/3/library/ssl.html (exceptions); docs.python.org/3/library/exceptions.html (OS exceptions)",
        rows: &[
            said("remotedisconnected", Connection),
            said("badstatusline", Connection), // the server closed or sent nothing where a status line was due
            said("ssleoferror", Connection),
            said("sslzeroreturnerror", Connection),
            said("sslcertverificationerror", Configuration),
            said("connectionreseterror", Connection),
            said("connectionrefusederror", Connection),
            said("connectionabortederror", Connection),
            said("brokenpipeerror", Connection),
            said("timeouterror", Timeout), // Python's (and JavaScript's AbortSignal.timeout) TimeoutError
            said("timeoutexception", Timeout), // Java / Kotlin / httpx TimeoutException
        ],
    },
    ClientTable {
        client: "Vercel AI SDK error names (`AI_<Name>: message`)",
        source: "ai-sdk.dev/docs/reference/ai-sdk-errors (the list and each error's page)",
        rows: &[
            // AI_APICallError and AI_RetryError carry a status or a last error that decides.
            // The model's output failed the schema or named a tool that is not there.
            said("ai_noobjectgeneratederror", Validation),
            said("ai_typevalidationerror", Validation),
            said("ai_nosuchtoolerror", Validation),
            said("ai_invalidtoolinputerror", Validation),
            said("ai_invalidtoolargumentserror", Validation),
            // The answer could not be read.
            said("ai_jsonparseerror", InvalidResponse),
            said("ai_invalidresponsedataerror", InvalidResponse),
            said("ai_emptyresponsebodyerror", InvalidResponse),
            said("ai_nocontentgeneratederror", InvalidResponse),
            // Set-up: no key, no setting, an unknown model or provider.
            said("ai_loadapikeyerror", Configuration),
            said("ai_loadsettingerror", Configuration),
            said("ai_nosuchprovidererror", Configuration),
            said("ai_nosuchmodelerror", NotFound),
            // The request the caller built.
            said("ai_invalidprompterror", BadRequest),
            said("ai_unsupportedfunctionalityerror", BadRequest),
            said("ai_toomanyembeddingvaluesforcallerror", BadRequest),
            said("ai_invalidargumenterror", Programming),
            said("ai_invalidmessageroleerror", Programming),
            said("ai_invaliddatacontenterror", Programming),
            said("ai_messageconversionerror", Programming),
            said("ai_nooutputspecifiederror", Programming),
            said("ai_downloaderror", Connection),
        ],
    },
    ClientTable {
        client: "Apple URLSession (NSURLErrorDomain), as Swift clients print it",
        source: "developer.apple.com/documentation/foundation/urlerror/code (URL Loading System error codes)",
        rows: &[
            said("code=-1001", Timeout), // timedOut: "The request timed out."
            said("code=-1003", Configuration), // cannotFindHost
            said("specified hostname could not be found", Configuration),
            said("code=-1004", Connection), // cannotConnectToHost
            said("could not connect to the server", Connection),
            said("code=-1005", Connection), // networkConnectionLost
            said("network connection was lost", Connection),
            said("code=-1009", Connection), // notConnectedToInternet
            said("appears to be offline", Connection),
            said("code=-1200", Connection), // secureConnectionFailed (a certificate says so itself)
            said("code=-1202", Configuration), // serverCertificateUntrusted
            said("certificate for this server is invalid", Configuration),
            said("code=-1017", InvalidResponse), // cannotParseResponse
            said("cannot parse response", InvalidResponse),
        ],
    },
    ClientTable {
        client: "Dart dart:io / package:http",
        source: "api.dart.dev (dart:io HttpException, SocketException, HandshakeException); github.com/dart-lang/sdk sdk/lib/_http/http_impl.dart",
        rows: &[
            said("connection closed before full header was received", Connection),
            said("connection closed while receiving data", Connection),
            said("handshakeexception", Connection), // a certificate's words, read first, say otherwise
        ],
    },
    ClientTable {
        client: "Erlang/OTP ssl alerts and hackney (Elixir's HTTPoison, Tesla)",
        source: "www.erlang.org/doc/apps/ssl/ssl.html (error_alert, TLS alert descriptions); github.com/benoitc/hackney (error reasons)",
        rows: &[
            said("unknown ca", Configuration),
            said("bad certificate", Configuration),
            said("certificate expired", Configuration),
            said("handshake failure", Configuration),
            said(":checkout_timeout", Timeout), // hackney's pool had no connection in time
        ],
    },
    ClientTable {
        client: "HTTP reason phrases, printed without their number",
        source: "www.rfc-editor.org/rfc/rfc9110 §15 (status codes); developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors",
        rows: &[
            said("request timeout", Timeout), // 408
            // 421: the connection was reused for a host it does not serve; a new one may succeed.
            said("misdirected request", Connection),
            said("insufficient storage", ServerError), // 507
            said("web server returned an unknown error", ServerError), // Cloudflare 520
            said("a timeout occurred", Timeout),                       // Cloudflare 524
            said("payment required", PaymentRequired),                 // 402
            said("payload too large", ContextOverflow),                // 413 (RFC 7231 name)
            said("content too large", ContextOverflow),                // 413 (RFC 9110 name)
            said("unprocessable entity", Unprocessable),               // 422
            said("unprocessable content", Unprocessable),
            said("unauthorized", Unauthorized),                        // 401
            said("forbidden", Forbidden),                              // 403
            said("method not allowed", ClientError),                   // 405: a wrong endpoint
            said("precondition failed", ClientError),                  // 412
            said("upgrade required", Configuration),                   // 426
            said("network authentication required", Configuration),  // 511: a proxy or portal
        ],
    },
    ClientTable {
        client: "gRPC status codes (Go `code = Name`, Python `StatusCode.NAME`, .NET `StatusCode=\"Name\"`)",
        source: "grpc.github.io/grpc/core/md_doc_statuscodes.html; googleapis google/rpc/code.proto",
        rows: &[
            // The transient ones are the main table's; these are the rest of the list.
            said("code = invalidargument", BadRequest),
            said("statuscode.invalid_argument", BadRequest),
            said("statuscode=invalidargument", BadRequest),
            said("code = failedprecondition", BadRequest),
            said("statuscode.failed_precondition", BadRequest),
            said("statuscode=failedprecondition", BadRequest),
            said("code = outofrange", BadRequest),
            said("statuscode.out_of_range", BadRequest),
            said("statuscode=outofrange", BadRequest),
            said("code = notfound", NotFound),
            said("statuscode.not_found", NotFound),
            said("statuscode=notfound", NotFound),
            said("code = alreadyexists", ClientError),
            said("statuscode.already_exists", ClientError),
            said("statuscode=alreadyexists", ClientError),
            said("code = permissiondenied", Forbidden),
            said("statuscode.permission_denied", Forbidden),
            said("statuscode=permissiondenied", Forbidden),
            said("code = unauthenticated", Unauthorized),
            said("statuscode.unauthenticated", Unauthorized),
            said("statuscode=unauthenticated", Unauthorized),
            // UNIMPLEMENTED: the server has no such method; the same on every try (as Databricks'
            // code table reads it).
            said("code = unimplemented", BadRequest),
            said("statuscode.unimplemented", BadRequest),
            said("statuscode=unimplemented", BadRequest),
            said("code = dataloss", ServerError),
            said("statuscode.data_loss", ServerError),
            said("statuscode=dataloss", ServerError),
            said("statuscode.resource_exhausted", RateLimited),
            said("statuscode=\"unavailable\"", ServerError),
            said("statuscode=\"deadlineexceeded\"", Timeout),
            said("statuscode=\"resourceexhausted\"", RateLimited),
            said("statuscode=\"internal\"", ServerError),
            said("statuscode=\"unauthenticated\"", Unauthorized),
            said("statuscode=\"permissiondenied\"", Forbidden),
            said("statuscode=\"invalidargument\"", BadRequest),
            said("statuscode=\"notfound\"", NotFound),
            said("rst_stream", Connection), // grpc: Received RST_STREAM with code 2
        ],
    },
    ClientTable {
        client: "Chromium net errors (net::ERR_*), as a browser's console and Electron print them",
        source: "chromium.googlesource.com/chromium/src/+/main/net/base/net_error_list.h",
        rows: &[
            // The body ended before its last chunk or its declared length: a stream cut.
            said("err_incomplete_chunked_encoding", StreamInterrupted), // -355
            said("err_content_length_mismatch", StreamInterrupted),     // -354
            said("err_timed_out", Timeout),                             // -7
            said("err_connection_timed_out", Timeout),                  // -118
            said("err_network_changed", Connection),                    // -21
            said("err_network_io_suspended", Connection),               // -12
            said("err_socket_not_connected", Connection),               // -15
            said("err_connection_closed", Connection),                  // -100
            said("err_connection_reset", Connection),                   // -101
            said("err_connection_refused", Connection),                 // -102
            said("err_connection_aborted", Connection),                 // -103
            said("err_connection_failed", Connection),                  // -104
            said("err_internet_disconnected", Connection),              // -106
            said("err_address_unreachable", Connection),                // -109
            said("err_tunnel_connection_failed", Connection),           // -111
            said("err_proxy_connection_failed", Connection),            // -130
            said("err_name_resolution_failed", Connection),             // -137 (DNS lookup failed)
            said("err_empty_response", Connection),                     // -324
            said("err_http2_protocol_error", Connection),               // -337
            said("err_http2_server_refused_stream", Connection),        // -351
            said("err_http2_ping_failed", Connection),                  // -352
            said("err_quic_protocol_error", Connection),                // -356
            said("err_ssl_protocol_error", Connection),                 // -107
            said("err_invalid_http_response", InvalidResponse),         // -370
            said("err_response_headers_too_big", InvalidResponse),      // -325
            // The same request meets these again: a name, a certificate, an address, a scheme.
            said("err_name_not_resolved", Configuration),               // -105
            said("err_address_invalid", Configuration),                 // -108
            said("err_ssl_version_or_cipher_mismatch", Configuration),  // -113
            said("err_cert_common_name_invalid", Configuration),        // -200
            said("err_cert_date_invalid", Configuration),               // -201
            said("err_cert_authority_invalid", Configuration),          // -202
            said("err_disallowed_url_scheme", Configuration),           // -301
            said("err_unsafe_port", Configuration),                     // -312
            said("err_too_many_redirects", Configuration),              // -310
            said("err_blocked_by_client", Configuration),               // -20
        ],
    },
    ClientTable {
        client: "Godot HTTPRequest.Result (GDScript prints the name or the number)",
        source: "docs.godotengine.org/en/stable/classes/class_httprequest.html (enum Result)",
        rows: &[
            said("result_chunked_body_size_mismatch", StreamInterrupted), // 1
            said("result_cant_connect", Connection),                       // 2
            said("result: 2, response code: 0", Connection),
            said("result_cant_resolve", Configuration), // 3
            said("result: 3, response code: 0", Configuration),
            said("result_connection_error", Connection), // 4
            said("result: 4, response code: 0", Connection),
            // 5: a certificate Godot's bundle does not trust, on every try.
            said("result_tls_handshake_error", Configuration),
            said("result: 5, response code: 0", Configuration),
            said("result_no_response", Connection), // 6
            said("result: 6, response code: 0", Connection),
            said("result_request_failed", Connection), // 9
            said("result_redirect_limit_reached", Configuration), // 12
            said("result_timeout", Timeout),                       // 13
            said("result: 13, response code: 0", Timeout),
            // Apps print the number with their own gloss ("HTTP Response Result 13 (No response)").
            said("(no response)", Connection),
        ],
    },
    ClientTable {
        client: "curl's error texts (curl_easy_strerror, the curl tool's messages)",
        source: "curl.se/libcurl/c/libcurl-errors.html; curl src/tool_operate.c",
        rows: &[
            said("failure when receiving data from the peer", Connection), // 56
            said("failed sending data to the peer", Connection), // 55
            said("transferred a partial file", StreamInterrupted), // 18
            said("stream error in the http/2 framing layer", Connection), // 92
            // (batch 23) hyper's h2 reset as reqwest's Debug prints it ("hyper::Error(Http2,
            // Error { kind: Reset(StreamId(9), NO_ERROR, Remote) })", warpdotdev/warp#8276) and
            // h2's Display "stream error received: ..." (h2 src/error.rs).
            said("kind: reset(streamid(", Connection),
            said("stream error received", Connection),
            said("could not connect to server", Connection), // 7
            said("couldn't connect to server", Connection),
            // The curl tool's own usage errors: the caller built no URL.
            said("no url specified", Configuration), // exit 2
        ],
    },
    ClientTable {
        client: "Apps' own words for a stalled or unreachable transfer",
        source: "Alfred's workflow runner \"[Connection Stalled]\" (alfredapp.com help, Run Script); fasthttp client.go ErrConnectionClosed",
        rows: &[
            said("connection stalled", StreamInterrupted),
            said("cannot connect to the", Connection),
            // fasthttp: "the server closed connection before returning the first response
            // byte. Make sure the server returns 'Connection: close' ..." (a gateway built on
            // fasthttp relays it under its own 400).
            said("closed connection before returning the first response byte", Connection),
        ],
    },
    // (batch 24) Python's `websockets` (src/websockets/exceptions.py, ConnectionClosed.__str__):
    // "sent 1000 (OK); no close frame received", "received
    // 1011 (internal error); no close frame sent". A handshake left half done is a socket that
    // dropped (as close code 1006 is), whichever side's code was sent; the Realtime clients
    // (openai-python's realtime, LiveKit's and Pipecat's plugins) raise it as it is.
    ClientTable {
        client: "Python websockets (ConnectionClosed's text)",
        source: "github.com/python-websockets/websockets src/websockets/exceptions.py",
        rows: &[
            said("no close frame received", Connection),
            said("no close frame sent", Connection),
        ],
    },
    ClientTable {
        client: "Apps' own words for a reply that never came, or stopped coming",
        source: "github.com/seratch/ChatGPT-in-Slack (\"OpenAI didn't respond within 75 seconds\"); github.com/anthropics/claude-code (\"The response stopped arriving\"); github.com/charmbracelet/crush (\"Stream Transport Error\"); Chinese bots (请求超时 / 响应超时)",
        rows: &[
            // A wait the app gave up on, in any words: a timeout, read before the main tables'
            // "try again later" (a catch-all) and 繁忙 (a guess at the cause beside it).
            said("didn't respond within", Timeout),
            said("did not respond within", Timeout),
            said("no response within", Timeout),
            said("did not respond in time", Timeout),
            said("didn't respond in time", Timeout),
            // viem's TimeoutError "The request took too long to respond."; apps' "Took too
            // long to respond. Please try again." on a fetch aborted by its timer.
            said("took too long to respond", Timeout),
            said("响应时间过长", Timeout), // the response took too long
            said("请求超时", Timeout), // request timed out
            said("响应超时", Timeout), // response timed out
            said("连接超时", Timeout), // connection timed out
            said("读取超时", Timeout), // read timed out
            said("超时未响应", Timeout),
            // (batch 26) A bot's "处理超时，请稍后重试" (processing timed out, try later).
            said("处理超时", Timeout),
            said("處理逾時", Timeout),
            said("請求逾時", Timeout), // the same in Traditional Chinese
            said("回應逾時", Timeout),
            said("連線逾時", Timeout),
            said("タイムアウト", Timeout), // ja: timeout
            // An answer that began and stopped: the stream was cut.
            said("response stopped arriving", StreamInterrupted),
            said("response above may be incomplete", StreamInterrupted),
            said("stream transport error", StreamInterrupted),
        ],
    },
    // (batch 27) A TLS set-up, as each runtime words it, parted by what the next try meets: a
    // link dropped before the handshake finished may pass (connection); a certificate, a name
    // or a protocol the peer refuses fails every time (configuration). Negotiation refused by
    // the peer's alert (Go "remote error: tls: handshake failure", OpenSSL "sslv3 alert
    // handshake failure", Erlang's "handshake failure") is the set-up kind, as the rows above
    // already read it.
    ClientTable {
        client: "TLS handshakes in Node, Go, Java and curl",
        source: "github.com/nodejs/node lib/_tls_wrap.js (onSocketClose: ECONNRESET \"Client network socket disconnected before secure TLS connection was established\"); go.dev/src/crypto/tls/alert.go, conn.go (\"remote error: tls: \" + alert text, \"first record does not look like a TLS handshake\"); docs.oracle.com javax.net.ssl.SSLHandshakeException (\"Remote host terminated the handshake\"); curl.se/libcurl/c/libcurl-errors.html (CURLE_PEER_FAILED_VERIFICATION \"SSL certificate problem\")",
        rows: &[
            said("disconnected before secure tls connection was established", Connection),
            said("remote host terminated the handshake", Connection),
            said("remote host closed connection during handshake", Connection),
            said("remote error: tls: handshake failure", Configuration),
            said("remote error: tls: unrecognized name", Configuration),
            said("remote error: tls: protocol version not supported", Configuration),
            said("first record does not look like a tls handshake", Configuration),
            said("ssl certificate problem", Configuration),
            said("does not match certificate's altnames", Configuration),
            said("unable to verify the first certificate", Configuration),
            // OpenSSL's reason in its spaced form (Node's EPROTO "ssl3_get_record:wrong version
            // number"): plain HTTP where TLS was expected, a URL's scheme or port.
            said("wrong version number", Configuration),
        ],
    },
    // (batch 28) Firefox's network results, as a WebExtension, a Gecko-hosted app or a
    // browser-driving bot prints them ("Error: NS_ERROR_NET_TIMEOUT"): a name where Chromium
    // says net::ERR_*, parted the same way.
    ClientTable {
        client: "Firefox / Gecko network nsresult names (NS_ERROR_*)",
        source: "searchfox.org/mozilla-central/source/xpcom/base/ErrorList.py (module NETWORK)",
        rows: &[
            said("ns_error_net_timeout", Timeout),
            said("ns_error_net_timeout_external", Timeout),
            said("ns_error_proxy_gateway_timeout", Timeout),
            said("ns_error_net_reset", Connection),
            said("ns_error_net_interrupt", Connection),
            said("ns_error_net_empty_response", Connection),
            said("ns_error_net_http2_sent_goaway", Connection),
            said("ns_error_net_http3_protocol_error", Connection),
            said("ns_error_connection_refused", Connection),
            said("ns_error_proxy_connection_refused", Connection),
            said("ns_error_offline", Connection),
            said("ns_error_dns_lookup_queue_full", Connection),
            said("ns_error_proxy_bad_gateway", ServerError),
            // The body stopped short of its declared length: a stream cut.
            said("ns_error_net_partial_transfer", StreamInterrupted),
            said("ns_error_corrupted_content", InvalidResponse),
            // The same request meets these again (as ENOTFOUND and ERR_NAME_NOT_RESOLVED are).
            said("ns_error_unknown_host", Configuration),
            said("ns_error_unknown_proxy_host", Configuration),
            said("ns_error_proxy_authentication_failed", Configuration),
            said("ns_error_net_inadequate_security", Configuration),
            said("ns_error_port_access_not_allowed", Configuration),
            said("ns_error_malformed_uri", Configuration),
            said("ns_error_unknown_protocol", Configuration),
            said("ns_error_redirect_loop", Configuration),
        ],
    },
    // (batch 28) urql's CombinedError prefixes a transport failure with "[Network]" (and a
    // server's GraphQL errors with "[GraphQL]"); Tabby's chat panel shows it bare ("[Network]
    // undefined") when fetch gave no reason.
    ClientTable {
        client: "urql CombinedError (GraphQL clients' network failures)",
        source: "github.com/urql-graphql/urql packages/core/src/utils/error.ts (generateErrorMessage)",
        rows: &[said("[network]", Connection)],
    },
    // (batch 28) A JavaScript client's own timer, in its words: promptfoo "Request timed out
    // after 5000 ms"; ky's TimeoutError "Request timed out"; openai-node's APIConnectionTimeoutError
    // "Request timed out."; "Timed out after 30000ms".
    ClientTable {
        client: "JavaScript clients' timers (promptfoo fetchWithTimeout, ky, openai-node, p-timeout)",
        source: "github.com/promptfoo/promptfoo src/util/fetch; github.com/sindresorhus/ky source/errors/TimeoutError.ts; github.com/openai/openai-node src/error.ts",
        rows: &[
            said("request timed out after", Timeout),
            said("timed out after", Timeout),
        ],
    },
    ClientTable {
        client: "HTTP proxy tunnels refused for credentials (407), in every client's words",
        source: "RFC 9110 §15.5.8; cpython Lib/http/client.py _tunnel (\"Tunnel connection failed: 407 Proxy Authentication Required\"); square/okhttp RealConnection.createTunnel (\"Failed to authenticate with proxy\"); curl lib/http_proxy.c (\"CONNECT tunnel failed, response 407\"); nodejs/undici ProxyAgent (\"Proxy response (407) !== 200 when HTTP Tunneling\"); JDK HttpURLConnection (\"Unable to tunnel through proxy. Proxy returns \\\"HTTP/1.1 407\")",
        rows: &[
            // (batch 28) The client's own proxy refused its CONNECT tunnel for want of
            // credentials: set-up, the same on every try, whatever the client calls it. Only
            // the tunnel's words: a bare 407 and its reason phrase stay `client_error`, the
            // contract's "any other 4xx" (tests/vectors faraday_proxy_auth_error_407).
            stated("failed to authenticate with proxy", Configuration),
            stated("tunnel connection failed: 407", Configuration),
            stated("tunnel failed, response 407", Configuration),
            stated("proxy response (407)", Configuration),
            stated("proxy returns \"http/1.1 407", Configuration),
        ],
    },
    // (batch 31a) A read that ended before the bytes it waited for, in asyncio's words
    // (`asyncio.IncompleteReadError`: "{n} bytes read on a total of {m} expected bytes", as
    // Xinference's supervisor prints it when its model worker's connection closed: "Remote
    // server 0.0.0.0:44311 closed: 0 bytes read on a total of 11 expected bytes"): the peer
    // closed the connection under the exchange, as http.client's IncompleteRead
    // ("incompleteread" above) says.
    ClientTable {
        client: "Python asyncio streams (printed as text)",
        source: "github.com/python/cpython Lib/asyncio/exceptions.py (IncompleteReadError)",
        rows: &[
            said("bytes read on a total of", Connection),
            said("incompletereaderror", Connection),
        ],
    },
    // (batch 31a) Dart's own timer: `Future.timeout` completes with `TimeoutException("Future
    // not completed")`, `Stream.timeout` with `TimeoutException("No stream event")`; printed as
    // "TimeoutException after 0:00:30.000000: Future not completed", or only the message (a
    // Flutter app's toast "future not completed" on a call to Volcengine's Doubao).
    ClientTable {
        client: "Dart async timeouts (Future.timeout, Stream.timeout)",
        source: "github.com/dart-lang/sdk sdk/lib/async/future.dart (timeout), sdk/lib/async/stream.dart (timeout), sdk/lib/async/async_error.dart (TimeoutException.toString)",
        rows: &[
            said("future not completed", Timeout),
            said("no stream event", Timeout),
        ],
    },
    // (batch 34a) A proxy that refused the CONNECT tunnel itself with a 4xx (400 Bad Request,
    // 403, 405 Method Not Allowed: a plain web server or a proxy that does not tunnel HTTPS, an
    // https_proxy pointing at the wrong port): the proxy setting is wrong and every try is
    // refused alike; the 407 rows above are the credentials' case of the same rule. A 5xx from
    // the proxy (502/503: it could not reach the upstream) stays the connection's.
    ClientTable {
        client: "HTTP proxy tunnels refused with a client error (4xx), in every client's words",
        source: "cpython Lib/http/client.py HTTPConnection._tunnel (\"Tunnel connection failed: {code} {message}\" for any status but 200); curl lib/http_proxy.c (\"CONNECT tunnel failed, response {code}\"); nodejs/undici ProxyAgent (\"Proxy response ({code}) !== 200 when HTTP Tunneling\"); RFC 9110 §9.3.6",
        rows: &[
            stated("tunnel connection failed: 400", Configuration),
            stated("tunnel connection failed: 401", Configuration),
            stated("tunnel connection failed: 403", Configuration),
            stated("tunnel connection failed: 404", Configuration),
            stated("tunnel connection failed: 405", Configuration),
            stated("tunnel failed, response 400", Configuration),
            stated("tunnel failed, response 403", Configuration),
            stated("tunnel failed, response 405", Configuration),
            stated("proxy response (400)", Configuration),
            stated("proxy response (403)", Configuration),
            stated("proxy response (405)", Configuration),
        ],
    },
    // (batch 34a) A SOCKS proxy set in the environment with the client's SOCKS extra not
    // installed: requests' adapter raises `InvalidSchema("Missing dependencies for SOCKS
    // support.")` (the old openai SDK wraps it as `APIConnectionError`), httpx "Using SOCKS
    // proxy, but the 'socksio' package is not installed", urllib3 `SOCKSProxyManager` "SOCKS
    // support in urllib3 requires the installation of optional dependencies": set-up, the same
    // on every try.
    ClientTable {
        client: "Python clients without their SOCKS extra",
        source: "github.com/psf/requests src/requests/adapters.py (InvalidSchema \"Missing dependencies for SOCKS support.\"); github.com/encode/httpx httpx/_transports/default.py (\"Using SOCKS proxy, but the 'socksio' package is not installed\"); github.com/urllib3/urllib3 src/urllib3/contrib/socks.py",
        rows: &[
            stated("missing dependencies for socks support", Configuration),
            stated("socks support in urllib3 requires", Configuration),
            stated("socksio' package is not installed", Configuration),
        ],
    },
    // (batch 34a) Node's HTTP parser (llhttp) on bytes that are not an HTTP response: `Error:
    // Parse Error: Expected HTTP/` (code HPE_INVALID_CONSTANT) when a kept-alive connection
    // carries leftovers of the previous answer, "Invalid header value char"
    // (HPE_INVALID_HEADER_TOKEN), "Invalid character in chunk size" (HPE_INVALID_CHUNK_SIZE),
    // "Unexpected content-length header" (HPE_UNEXPECTED_CONTENT_LENGTH). A remote protocol
    // error, a connection's fault by CONTRACT §2, never a body the client could not decode.
    ClientTable {
        client: "Node.js http client (llhttp parse errors)",
        source: "github.com/nodejs/llhttp src/llhttp/http.ts (\"Expected HTTP/\", \"Invalid header value char\", \"Invalid character in chunk size\"); nodejs/node lib/_http_client.js (socketOnData: `Parse Error: ${reason}`, err.code = HPE_*)",
        rows: &[
            said("parse error: expected http/", Connection),
            said("hpe_invalid_constant", Connection),
            said("parse error: invalid header value char", Connection),
            said("hpe_invalid_header_token", Connection),
            said("parse error: invalid character in chunk size", Connection),
            said("hpe_invalid_chunk_size", Connection),
            said("hpe_unexpected_content_length", Connection),
        ],
    },
    // (batch 35a) A chunked body that ended before its next chunk: the JDK's java.net.http
    // client names the state its chunk parser was in when the bytes stopped ("chunked transfer
    // encoding, state: READING_LENGTH", as openai-kotlin's OpenAIHttpException relays it,
    // aallam/openai-kotlin#177; READING_DATA when the cut falls inside a chunk), Ktor's own
    // decoder says its stream "has ended unexpectedly". The answer was being read: a stream
    // cut, as Chromium's ERR_INCOMPLETE_CHUNKED_ENCODING is.
    ClientTable {
        client: "JVM HTTP clients' chunked decoders (java.net.http, Ktor)",
        source: "openjdk/jdk src/java.net.http/share/classes/jdk/internal/net/http/ResponseContent.java (ChunkState READING_LENGTH, READING_DATA); ktorio/ktor ChunkedTransferEncoding.kt (\"Chunked stream has ended unexpectedly\")",
        rows: &[
            said("chunked transfer encoding, state: reading_length", StreamInterrupted),
            said("chunked transfer encoding, state: reading_data", StreamInterrupted),
            said("chunked stream has ended unexpectedly", StreamInterrupted),
        ],
    },
];

/// (batch 28) A fetch that got an answer, in the app's words: the connection word is followed by
/// the status the server answered ("Failed to fetch: 500" in ChatHub, "fetch failed: 502",
/// "Failed to fetch (500)", "failed to fetch with status 500"). `{}` is the status of the
/// failure; where it follows, the 5xx is the server's, not a connection that never happened.
pub const FETCH_ANSWERED: &[&str] = &[
    "failed to fetch: {}",
    "failed to fetch ({})",
    "failed to fetch with status {}",
    "failed to fetch, status {}",
    "fetch failed: {}",
    "fetch failed with status {}",
];

/// (batch 29a) Node's fetch failing in a relay's own words under the 502 it answers (9router's
/// "[502]: fetch failed (reset after 29s)", decolua/9router#326): the relay never reached its
/// upstream, a connection; `FETCH_ANSWERED` forms, which carry the upstream's status, are not.
pub const RELAY_FETCH_FAILED: &[&str] = &["fetch failed"];

/// Every row of every client table, in table order.
pub fn rows() -> impl Iterator<Item = &'static Phrase> {
    TABLES
        .iter()
        // The catalogs read from each client's own source (`client_catalogs`).
        .chain(super::client_catalogs::TABLES)
        .flat_map(|t| t.rows.iter())
}

/// (batch 19) Modules whose exception classes are another module's under the same names:
/// httpx re-raises each httpcore exception as its twin of the same name (httpx
/// `_transports/default.py` maps `httpcore.ConnectError` to `httpx.ConnectError`,
/// `httpcore.UnsupportedProtocol` to `httpx.UnsupportedProtocol`, and so on), and a traceback of
/// a client that calls httpcore directly, or prints the cause, names the httpcore one. A class
/// of the first module is read as its twin in the second.
pub const MODULE_TWINS: &[(&str, &str)] =
    &[("httpcore._exceptions.", "httpx."), ("httpcore.", "httpx.")];

/// (batch 24) A connect that timed out, in the words a client prints whatever its language:
/// Winsock's 10060 by number and by name (learn.microsoft.com windows-sockets-error-codes-2:
/// WSAETIMEDOUT "A connection attempt failed because the connected party did not properly
/// respond after a period of time", in Chinese Windows "由于连接方在一段时间后没有正确答复或连接
/// 的主机没有反应"), urllib3's `ConnectTimeoutError`. Read by `mod.rs` where an app's own 500
/// relays it: the connection is what failed.
pub const CONNECT_TIMEOUT_WORDS: &[&str] = &[
    "[winerror 10060]",
    "[errno 10060]",
    "socketexception (10060)",
    "(os error 10060)",
    "wsaetimedout",
    "did not properly respond after a period of time",
    "没有正确答复",
    "connecttimeouterror",
];

/// (batch 30a) Words of a client that failed to open a connection, whatever socket error it
/// wraps: urllib3's `NewConnectionError` ("Failed to establish a new connection: [WinError
/// 10060] ..."). A connect timeout's number inside them is only why the connect failed; the
/// corpus labels these texts `connection` (openai.json, transport_b24a), one text one decision.
pub const CONNECT_FAILED_WRAPPERS: &[&str] =
    &["failed to establish a new connection", "newconnectionerror"];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 21) Chromium's net error names as a browser console or Electron prints them
    /// (net_error_list.h), Godot's HTTPRequest results, curl's strerror texts and apps' stall
    /// words: each decides the transfer's failure, whatever the line around it.
    #[test]
    fn transport_names_of_browsers_engines_and_curl() {
        for (text, want, retry) in [
            (
                "GET https://api.example.com/v1/models net::ERR_CONNECTION_RESET",
                Connection,
                true,
            ),
            (
                "Failed to load resource: net::ERR_CONNECTION_CLOSED",
                Connection,
                true,
            ),
            ("net::ERR_EMPTY_RESPONSE", Connection, true),
            (
                "POST https://x/v1/chat net::ERR_NETWORK_CHANGED",
                Connection,
                true,
            ),
            ("net::ERR_TIMED_OUT", Timeout, true),
            ("net::ERR_CONNECTION_TIMED_OUT", Timeout, true),
            (
                "fetch failed: net::ERR_HTTP2_PROTOCOL_ERROR 200",
                Connection,
                true,
            ),
            (
                "net::ERR_CONTENT_LENGTH_MISMATCH 200 (OK)",
                StreamInterrupted,
                true,
            ),
            (
                "net::ERR_INCOMPLETE_CHUNKED_ENCODING",
                StreamInterrupted,
                true,
            ),
            ("net::ERR_NAME_NOT_RESOLVED", Configuration, false),
            ("net::ERR_CERT_AUTHORITY_INVALID", Configuration, false),
            (
                "request failed: HTTPRequest.RESULT_CANT_CONNECT",
                Connection,
                true,
            ),
            ("RESULT_TIMEOUT while waiting for the model", Timeout, true),
            (
                "HTTP response: Result: 2, Response Code: 0, Headers: []",
                Connection,
                true,
            ),
            ("Result: 5, Response Code: 0", Configuration, false),
            (
                "curl: Failure when receiving data from the peer",
                Connection,
                true,
            ),
            ("Transferred a partial file", StreamInterrupted, true),
            ("curl: no URL specified!", Configuration, false),
            ("[Connection Stalled]", StreamInterrupted, true),
            (
                "Cannot connect to the Ollama server at localhost:11434",
                Connection,
                true,
            ),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, retry), "{text}");
        }
    }

    /// fasthttp's connection-closed error is the upstream's transport failure even where a
    /// gateway on fasthttp relays it under its own 400.
    #[test]
    fn fasthttp_closed_before_first_byte_under_a_400() {
        let c = classify(&Failure::http(
            400,
            "the server closed connection before returning the first response byte. Make sure \
             the server returns 'Connection: close' response header before closing the connection",
        ));
        assert_eq!((c.category, c.transient), (Connection, true));
    }

    /// (batch 24) websockets' one-sided closes and apps' words for a wait given up on or a
    /// stream cut: retried as the transport failures they are.
    #[test]
    fn one_sided_closes_and_stalled_replies() {
        use crate::classify::classify;
        use crate::failure::Failure;
        for (text, want) in [
            // python-websockets exceptions.py renderings
            ("API error: sent 1000 (OK); no close frame received", Connection),
            ("sent 1011 (internal error) keepalive ping timeout; no close frame received", Connection),
            ("received 1001 (going away); no close frame sent", Connection),
            ("Sorry! It looks like OpenAI didn't respond within 75 seconds. Please try again later.", Timeout),
            ("The server did not respond within 30s", Timeout),
            ("The model did not respond in time", Timeout),
            ("The server took too long to respond", Timeout),
            ("响应时间过长，请稍后再试", Timeout),
            ("openai服务器仍然响应超时，这有极有可能是openai服务器处于繁忙状态", Timeout),
            ("请求超时，请稍后再试！", Timeout),
            ("处理超时，请稍后重试", Timeout), // (batch 26) a Feishu bot's words
            ("連線逾時，請稍後再試", Timeout),
            ("API Error: The response stopped arriving. The response above may be incomplete.", StreamInterrupted),
            ("ERROR Stream Transport Error", StreamInterrupted),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, true), "{text}");
        }
    }

    /// Winsock errors in Rust's, Go's and C's renderings, and a connect timeout an app's own
    /// 500 relays (learn.microsoft.com windows-sockets-error-codes-2; Rust std io::Error
    /// Display; Go's "wsarecv: An existing connection was forcibly closed").
    #[test]
    fn winsock_errors_in_every_rendering() {
        for (text, want) in [
            (
                "error sending request: Connection reset by peer (os error 10054)",
                Connection,
            ),
            (
                "tcp connect error: No connection could be made (os error 10061)",
                Connection,
            ),
            ("connect failed: WSAECONNREFUSED", Connection),
            ("recv failed: WSAECONNRESET", Connection),
            ("operation timed out (os error 10060)", Timeout),
            ("socket error WSAETIMEDOUT", Timeout),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, true), "{text}");
        }
        for text in [
            "Request failed with status code 500\nError: Error communicating with OpenAI: HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded (Caused by NewConnectionError('Failed to establish a new connection: [WinError 10060] A connection attempt failed because the connected party did not properly respond after a period of time'))",
            "Request failed with status code 500: urllib3.exceptions.ConnectTimeoutError: Connection to api.openai.com timed out. (connect timeout=10)",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (Connection, true), "{text}");
        }
        // A server's own 500 with no client's connect words stays the server's.
        let c = classify(&Failure::new("Request failed with status code 500"));
        assert_eq!((c.category, c.transient), (ServerError, true));
    }

    /// websockets' ConnectionClosed texts (src/websockets/exceptions.py): a close handshake
    /// left half done is a dropped socket.
    #[test]
    fn websockets_half_done_close_handshake() {
        for (text, want) in [
            ("no close frame received or sent", Connection),
            ("sent 1000 (OK); no close frame received", Connection),
            (
                "websockets.exceptions.ConnectionClosedError: no close frame received or sent",
                Connection,
            ),
            // A code the server sent names the failure itself (1011: its internal error).
            (
                "received 1011 (internal error) keepalive ping timeout; no close frame sent",
                ServerError,
            ),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, true), "{text}");
        }
    }
}

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) TLS set-ups: a link dropped mid-handshake is retried; a certificate, a name
    /// or a negotiation the peer refuses is set-up.
    #[test]
    fn tls_handshakes_split_by_what_the_next_try_meets() {
        for (text, want) in [
            // Node _tls_wrap.js, with and without the code Node attaches
            ("HTTP: SOCKET ERROR: Client network socket disconnected before secure TLS connection was established", Connection),
            ("Error: Client network socket disconnected before secure TLS connection was established\n  code: 'ECONNRESET'", Connection),
            // Java SSLHandshakeException
            ("javax.net.ssl.SSLHandshakeException: Remote host terminated the handshake", Connection),
            ("Remote host closed connection during handshake", Connection),
            // OpenSSL through curl / Python: a cut handshake
            ("curl: (35) error:0A000126:SSL routines::unexpected eof while reading", Connection),
            // Go crypto/tls alerts and record check
            ("remote error: tls: handshake failure", Configuration),
            ("Post \"https://api.openai.com/v1/chat/completions\": remote error: tls: unrecognized name", Configuration),
            ("http: server gave HTTP response to HTTPS client", Configuration),
            ("tls: first record does not look like a TLS handshake", Configuration),
            // curl 60, Node's certificate messages
            ("curl: (60) SSL certificate problem: unable to get local issuer certificate", Configuration),
            ("Hostname/IP does not match certificate's altnames: Host: x. is not in the cert's altnames", Configuration),
            ("Error: unable to verify the first certificate", Configuration),
            // Node's EPROTO with OpenSSL's reason: plain HTTP where TLS was expected
            ("Error: write EPROTO 00000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number", Configuration),
            ("Error: read EPROTO", Connection),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, want == Connection), "{text}");
        }
    }
}

/// (batch 28) Firefox's nsresult names, urql's "[Network]" and JS timers' words.
#[cfg(test)]
mod batch28b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn gecko_names_urql_and_js_timers() {
        for (text, want) in [
            ("请求 ChatGPT 服务器时出现问题，请稍后再试\n错误信息: Error: NS_ERROR_NET_TIMEOUT", Timeout),
            // XPCOM's "Component returned failure code: 0x... (NAME)" form.
            ("Component returned failure code: 0x804b000d (NS_ERROR_CONNECTION_REFUSED) [nsIXMLHttpRequest.send]", Connection),
            ("Component returned failure code: 0x804b001e (NS_ERROR_UNKNOWN_HOST)", Configuration),
            ("fetch error: NS_ERROR_NET_RESET", Connection),
            ("NS_ERROR_NET_INTERRUPT", Connection),
            ("TypeError: NetworkError when attempting to fetch resource. NS_ERROR_OFFLINE", Connection),
            ("stream died: NS_ERROR_NET_PARTIAL_TRANSFER", StreamInterrupted),
            ("NS_ERROR_PROXY_AUTHENTICATION_FAILED", Configuration),
            // urql CombinedError.
            ("[Network] undefined", Connection),
            ("CombinedError: [Network] Failed to fetch", Connection),
            // promptfoo; p-timeout / ky style.
            ("Network error: Request timed out after 30000 ms. Please check your API configuration or try again later.", Timeout),
            ("TimeoutError: Timed out after 60000ms", Timeout),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, want.is_transient()), "{text}");
        }
    }
}

#[cfg(test)]
mod batch28a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 28) A proxy tunnel refused for credentials, in every HTTP client's words, is set-up.
    #[test]
    fn proxy_authentication_is_setup_in_every_client() {
        for (status, text) in [
            (Some(407), "Tunnel connection failed: 407 Proxy Authentication Required"), // cpython http.client
            (None, "java.io.IOException: Failed to authenticate with proxy"), // OkHttp
            (None, "curl: (56) CONNECT tunnel failed, response 407"),       // curl
            (None, "Proxy response (407) !== 200 when HTTP Tunneling"),     // undici ProxyAgent
            (None, "java.io.IOException: Unable to tunnel through proxy. Proxy returns \"HTTP/1.1 407 Proxy Authentication Required\""), // JDK
            (None, "The proxy tunnel request to proxy 'http://10.0.0.1:3128/' failed with status code '407'."), // .NET
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (Configuration, false), "{text}");
        }
        // A bare 407 with its reason phrase is the contract's other 4xx (Faraday::ProxyAuthError).
        let c = classify(&Failure::http(407, "407 \"Proxy Authentication Required\""));
        assert_eq!((c.category, c.transient), (ClientError, false));
    }

    /// (batch 28) A fetch whose words carry the status it got is the server's 5xx; the bare
    /// words under a 500 stay a connection that failed.
    #[test]
    fn a_fetch_that_names_its_status_was_answered() {
        for (status, text) in [
            (500, "Failed to fetch: 500"),                 // ChatHub
            (502, "Error: fetch failed: 502 Bad Gateway"), // a Node app's own wording
            (500, "Failed to fetch (500) from /api/chat"),
            (503, "failed to fetch with status 503"),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!(c.category, ServerError, "{text}");
            assert!(c.transient, "{text}");
        }
        let c = classify(&Failure::http(500, "TypeError: Failed to fetch"));
        assert_eq!((c.category, c.transient), (Connection, true));
    }
}

#[cfg(test)]
mod batch30a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 30a) A connect timeout's number inside urllib3's failed-new-connection words is
    /// a connection that failed, in any language of the words after the number; the number
    /// alone, or an httpx connect-timeout line, is still a timeout.
    #[test]
    fn a_timeout_inside_a_failed_new_connection_is_a_connection() {
        each(vec![
            (Failure::new("HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/models/gpt-4 (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x0>: Failed to establish a new connection: [WinError 10060] 由于连接方在一段时间后没有正确答复或连接的主机没有反应，连接尝试失败。'))"), Connection),
            (Failure::new("Failed to establish a new connection: [Errno 10060] A connection attempt failed because the connected party did not properly respond after a period of time"), Connection),
            (Failure::new("[WinError 10060] A connection attempt failed because the connected party did not properly respond after a period of time"), Timeout),
            (Failure::new("socket error WSAETIMEDOUT"), Timeout),
        ]);
    }

    /// (batch 30a) CPython's control-flow runtime errors are the program's bug; an error code
    /// naming the input invalid is the request's, even under a 500; a class named for a reply
    /// that could not be read back is an unreadable reply, whatever its message.
    #[test]
    fn runtime_bugs_invalid_input_codes_and_unreadable_reply_classes() {
        each_with(vec![
            (
                Failure::new("Error: Failed to generate response - No active exception to reraise"),
                Programming,
                false,
            ),
            (
                Failure::new("RuntimeError: dictionary changed size during iteration"),
                Programming,
                false,
            ),
            (
                Failure::http(500, "InferKit API Error: 500 - INVALID_INPUT"),
                BadRequest,
                false,
            ),
            (
                Failure::http(
                    500,
                    "{\"error\": {\"code\": \"INVALID_INPUT\", \"message\": \"text is empty\"}}",
                ),
                BadRequest,
                false,
            ),
            (
                Failure::http(500, "InferKit API Error: 500 - INTERNAL"),
                ServerError,
                true,
            ),
            (
                Failure::new("Syntax error")
                    .with_class(["OpenAI\\Exceptions\\UnserializableResponse"]),
                InvalidResponse,
                false,
            ),
            (
                Failure::new("could not read reply").with_class(["UnparsableResponseError"]),
                InvalidResponse,
                false,
            ),
        ]);
    }
}

#[cfg(test)]
mod batch31a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 31a) A read cut short in asyncio's words, and Dart's own timer in its message
    /// alone or behind its class; a Dart state error about a future is no timeout.
    #[test]
    fn asyncio_short_reads_and_dart_timers() {
        each(vec![
            // python/cpython#4354 (the message as asyncio printed it then).
            (
                Failure::new("IncompleteReadError: 1 bytes read on a total of None expected bytes"),
                Connection,
            ),
            // cpython Lib/asyncio/exceptions.py: the class as a traceback's last line.
            (
                Failure::new("asyncio.exceptions.IncompleteReadError: 0 bytes read on a total of 8 expected bytes"),
                Connection,
            ),
            // anasfik/openai#163 (dart_openai chat completion); bazrafkan/google_place#54.
            (
                Failure::new("TimeoutException after 0:00:30.000000: Future not completed"),
                Timeout,
            ),
            (Failure::new("TimeoutException (Future not completed)"), Timeout),
            // Dart SDK sdk/lib/async/stream.dart Stream.timeout's message.
            (
                Failure::new("TimeoutException after 0:00:10.000000: No stream event"),
                Timeout,
            ),
        ]);
        // Near miss: Dart's StateError for a completer completed twice is the program's own.
        let c = crate::classify::classify(&Failure::new("Bad state: Future already completed"));
        assert_ne!(c.category, Timeout);
    }

    /// (batch 31a) A serving part out of memory in the server's words; a model that would not
    /// load for lack of memory stays set-up.
    #[test]
    fn a_serving_part_out_of_memory() {
        each_with(vec![
            // xorbitsai/inference xinference/core/model.py `_handle_oom_error`.
            (
                Failure::new("Model actor is out of memory, model id: qwen2-instruct-0, error: Test Out of Memory Error"),
                ServerError,
                true,
            ),
            (
                Failure::http(500, "{\"detail\":\"Model actor is out of memory, model id: whisper-0\"}"),
                ServerError,
                true,
            ),
            // microsoft/foundry-local#209 (onnxruntime's CUDA provider under a bare 500).
            (
                Failure::http(500, "onnxruntime::CudaCall CUDA failure 2: out of memory ; GPU=0 ; hostname=ALEX-P14S ; expr=cudaDeviceSynchronize();"),
                ServerError,
                true,
            ),
            // ollama/ollama#6257 (llama.cpp's Metal backend).
            (
                Failure::new("error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\nggml_metal_graph_compute: command buffer 3 failed with status 5"),
                ServerError,
                true,
            ),
            // Near miss (forums_local_b21a's LM Studio wording): set-up, not retried.
            (
                Failure::new("Failed to load model: out of memory"),
                Configuration,
                false,
            ),
        ]);
    }

    /// (batch 31a) Ollama's runner failing under the request is the server's, whatever the
    /// runner's connection said; the client's own link to Ollama stays a connection.
    #[test]
    fn ollama_runner_failure_prefix_is_the_servers() {
        each(vec![
            // ollama/ollama#12334.
            (
                Failure::new("an error was encountered while running the model: read tcp 127.0.0.1:58428->127.0.0.1:58426: wsarecv: An existing connection was forcibly closed by the remote host"),
                ServerError,
            ),
            // Near miss, ollama/ollama#2558: the CLI's own request to the server.
            (
                Failure::new("Error: Post \"http://127.0.0.1:11434/api/chat\": read tcp 127.0.0.1:51644->127.0.0.1:11434: wsarecv: An existing connection was forcibly closed by the remote host."),
                Connection,
            ),
        ]);
    }

    /// (batch 31a) A local server that is not running is not reached; an app a relay needs
    /// that is not running is set-up; an engine loop that stopped is the server's.
    #[test]
    fn a_server_not_running() {
        each(vec![
            // lmstudio-ai/lmstudio-bug-tracker#1720 (`lms server status`'s verdict).
            (Failure::new("the server is not running"), Connection),
            // continuedev/continue#11452.
            (
                Failure::new(
                    "Unable to connect to local Ollama instance. Ollama may not be running.",
                ),
                Connection,
            ),
            // Near misses (corpus wordings): the relay's IDE, vLLM's engine loop.
            (
                Failure::new("Windsurf IDE is not running. Please start Windsurf first"),
                Configuration,
            ),
            (
                Failure::new("MQEngineDeadError: Engine loop is not running."),
                ServerError,
            ),
        ]);
    }

    /// (batch 31a) A relay's quota of credits that is not enough is a bill; a quota by the
    /// minute stays a throttle.
    #[test]
    fn a_relay_quota_not_enough_is_a_bill() {
        each_with(vec![
            // songquanpeng/one-api#898.
            (Failure::new("user quota is not enough"), PaymentRequired, false),
            // sparticleinc/chatgpt-google-summary-extension#222 (new-api).
            (
                Failure::new("{\"error\":{\"message\":\"user quota is not enough (request id: 20240909152207513198801NCNrvKxv)\",\"type\":\"new_api_error\",\"param\":\"\",\"code\":\"insufficient_user_quota\"}}"),
                PaymentRequired,
                false,
            ),
            // popjane/free_chatgpt_api#78, under the relay's 403.
            (
                Failure::http(403, "Error code: 403 - {'error': {'message': 'user quota is not enough (request id: 202502281247138307582052662997)', 'type': 'v_api_error', 'param': '', 'code': 'insufficient_user_quota'}}"),
                PaymentRequired,
                false,
            ),
            // Near miss: Gemini's per-minute quota.
            (
                Failure::new("Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region'"),
                RateLimited,
                true,
            ),
        ]);
    }

    /// (batch 31a) A code whose leading words are `invalid_request` is a request refused as
    /// written, without a status too; a specific code of the family keeps its own nature.
    #[test]
    fn invalid_request_code_family() {
        each(vec![
            (
                Failure::new("").with_body("{\"object\":\"error\",\"message\":\"Expected last role User or Tool\",\"type\":\"invalid_request_message_order\",\"param\":null,\"code\":\"3230\"}"),
                BadRequest,
            ),
            (
                Failure::new("").with_body("{\"error\":{\"message\":\"Missing json field\",\"code\":\"invalid_request_entity\"}}"),
                BadRequest,
            ),
            // Near miss: the pairing wording under the same type stays a pairing error.
            (
                Failure::new("").with_body("{\"object\":\"error\",\"message\":\"Not the same number of function calls and responses\",\"type\":\"invalid_request_message_order\",\"param\":null,\"code\":\"3230\"}"),
                OrphanToolCalls,
            ),
        ]);
    }

    /// (batch 31a) Google's finish-reason descriptions are the model's reply breaking the
    /// protocol, also under a wrapper's 500; a bare 500 stays a server error.
    #[test]
    fn finish_reason_descriptions_over_a_wrappers_500() {
        each_with(vec![
            // google-genai FinishReason MALFORMED_FUNCTION_CALL / UNEXPECTED_TOOL_CALL docs
            // (googleapis.github.io/kotlin-genai; pub.dev google_cloud_aiplatform_v1beta1).
            (
                Failure::http(500, "{\"error\":{\"message\":\"The tool call generated by the model is invalid.\",\"type\":\"internal_server_error\"}}"),
                InvalidResponse,
                false,
            ),
            // langchain-ai/langchain-google#1207's finish_message, relayed under a 500.
            (
                Failure::http(500, "finish_reason: MALFORMED_FUNCTION_CALL, finish_message: Malformed function call: print(default_api.Output(...))"),
                InvalidResponse,
                false,
            ),
            (
                Failure::http(500, "{\"error\":{\"message\":\"Internal error encountered.\",\"type\":\"internal_server_error\"}}"),
                ServerError,
                true,
            ),
        ]);
    }
}

/// (batch 35a) The rule writer's own families, each with texts beyond the batch's case.
/// The library's search was spent this session: variants are the same clients' other states
/// and messages (named in the rows' comments), and near misses that must keep their decision.
#[cfg(test)]
mod batch35a_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::each;
    use crate::failure::Failure;

    /// A socket that failed while a Stainless SDK's stream iterator was reading events is a
    /// cut mid-answer; one that failed before any answer stays a connection.
    #[test]
    fn read_errors_inside_the_stream_iterator_are_cuts() {
        each(vec![
            (
                Failure::new("Traceback (most recent call last):\n  File \"openai/_streaming.py\", line 147, in __aiter__\n    async for item in self._iterator:\nhttpx.ReadError")
                    .with_class(["httpx.ReadError", "httpcore.ReadError"]),
                StreamInterrupted,
            ),
            (
                Failure::new("  File \"/usr/lib/python3.11/site-packages/anthropic/_streaming.py\", line 68, in __stream__\n    for sse in iterator:\nhttpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)"),
                StreamInterrupted,
            ),
            // Near miss: the connect never happened, in the client's request path.
            (
                Failure::new("  File \"openai/_base_client.py\", line 1530, in _request\n    response = await self._client.send(request)\nhttpx.ConnectError: [Errno 111] Connection refused")
                    .with_class(["httpx.ConnectError"]),
                Connection,
            ),
        ]);
    }

    /// A JVM client's chunked decoder that met the end of the bytes mid-body.
    #[test]
    fn jvm_chunked_bodies_cut_short() {
        each(vec![
            (
                Failure::new("com.aallam.openai.api.exception.OpenAIHttpException: chunked transfer encoding, state: READING_LENGTH"),
                StreamInterrupted,
            ),
            (
                Failure::new("java.io.IOException: chunked transfer encoding, state: READING_DATA"),
                StreamInterrupted,
            ),
            // Ktor's decoder's words alone (behind `java.io.EOFException:` the class's EOF is
            // read first, as a connection: the same retry).
            (
                Failure::new("Chunked stream has ended unexpectedly: no chunk size"),
                StreamInterrupted,
            ),
            (
                Failure::new("java.io.EOFException: Chunked stream has ended unexpectedly: no chunk size"),
                Connection,
            ),
        ]);
    }

    /// .NET's bare cancellation text is HttpClient's timeout; a JS abort stays the caller's.
    #[test]
    fn dotnet_bare_cancel_is_a_timeout() {
        each(vec![
            (Failure::new("The operation was canceled."), Timeout),
            (Failure::new("  The operation was canceled"), Timeout),
            // Near misses: a JS AbortController's abort, and an abort's timeout.
            (
                Failure::new("This operation was aborted").with_class(["AbortError"]),
                Cancelled,
            ),
            (
                Failure::new("TimeoutError: The operation was aborted due to timeout"),
                Timeout,
            ),
        ]);
    }

    /// An abort in a WebSocket close's reason is the peer dropping the session.
    #[test]
    fn aborts_in_a_close_frame_are_the_peers() {
        each(vec![
            (
                Failure::new("WebSocket closed 1008: The operation was aborted"),
                Connection,
            ),
            (
                Failure::new("websocket closed with code 1011: operation was aborted"),
                Connection,
            ),
            // Near misses: a policy close with its own words, an abort with no close frame.
            (
                Failure::new("WebSocket closed 1008: Policy violation"),
                BadRequest,
            ),
            (
                Failure::new("DOMException [AbortError]: This operation was aborted"),
                Cancelled,
            ),
        ]);
    }

    /// A plan or subscription not active is payment, under any status; a bad subscription key
    /// and a tier's per-minute limit keep their readings.
    #[test]
    fn inactive_plans_are_payment() {
        each(vec![
            (Failure::http(400, "400 InvalidSubscription\nCoding Plan is not active"), PaymentRequired),
            (Failure::new("InvalidSubscription: Coding Plan is not active"), PaymentRequired),
            (Failure::http(403, "Your subscription has expired. Please renew to continue."), PaymentRequired),
            (Failure::http(402, "No active subscription found for this account"), PaymentRequired),
            (Failure::http(429, "Your plan is inactive; requests are refused until it is renewed"), PaymentRequired),
            // Near misses.
            (
                Failure::http(401, "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."),
                Unauthorized,
            ),
            (
                Failure::http(429, "Too many requests: rate limit exceeded for your subscription tier"),
                RateLimited,
            ),
        ]);
    }

    /// A bare numeric code read as a refused key holds only under 401/403.
    #[test]
    fn numeric_auth_codes_need_their_status() {
        each(vec![
            (
                Failure::http(400, "Error code: 400").with_body("{\"error\": {\"message\": \"messages 中 user（tool） 和 assistant 角色需交替出现\", \"type\": \"invalid_request_error\", \"param\": null, \"code\": \"1001\"}}"),
                BadRequest,
            ),
            (
                Failure::http(400, "Error code: 400").with_body("{\"error\": {\"message\": \"invalid parameter\", \"type\": \"invalid_request_error\", \"code\": \"1002\"}}"),
                BadRequest,
            ),
            // Near misses: Zhipu's own 1001 under its 401, its 1113 arrears under a 429.
            (
                Failure::http(401, "Error code: 401").with_body("{\"error\": {\"code\": \"1001\", \"message\": \"Header中未收到Authentication参数，无法进行身份验证。\"}}"),
                Unauthorized,
            ),
            (
                Failure::http(429, "Error code: 429").with_body("{\"error\": {\"code\": \"1113\", \"message\": \"您的账户已欠费，请充值后重试。\"}}"),
                PaymentRequired,
            ),
        ]);
    }

    /// llama-swap's refusal while its upstream is not running, in any state it names.
    #[test]
    fn llama_swap_process_not_serving() {
        each(vec![
            (
                Failure::new("Process can not ProxyRequest, state is failed"),
                ServerError,
            ),
            (
                Failure::new("Process can not ProxyRequest, state is starting"),
                ServerError,
            ),
            (
                Failure::http(503, "Process can not ProxyRequest, state is stopping"),
                ServerError,
            ),
        ]);
    }

    /// A pydantic error about a request model under a 4xx is the server checking the request;
    /// the same error about an output model stays the app's validation.
    #[test]
    fn request_schema_errors_are_the_requests() {
        each(vec![
            (
                Failure::http(400, "1 validation error for ChatCompletionRequest\nfunctions\n  Extra inputs are not permitted [type=extra_forbidden]"),
                BadRequest,
            ),
            (
                Failure::http(400, "2 validation errors for CompletionRequest\nprompt\n  Field required [type=missing]"),
                BadRequest,
            ),
            // Near miss: no status, an output model: the model's answer failed the schema.
            (
                Failure::new("1 validation error for StrictModel\nanswer\n  Field required [type=missing]")
                    .with_class(["pydantic_core._pydantic_core.ValidationError"]),
                Validation,
            ),
        ]);
    }

    /// A container's "Received client error (N)" names a client error: under SageMaker's own
    /// 400 the status keeps its precise reading; under Bedrock's 424 the words still beat it.
    #[test]
    fn received_client_error_keeps_a_precise_status() {
        each(vec![
            (
                Failure::http(400, "An error occurred (ModelError) when calling the InvokeEndpoint operation: Received client error (400) from primary with message \"{\"code\": 400, \"type\": \"InternalServerException\", \"message\": \"GET was unable to find an engine to execute this computation\"}\"")
                    .with_class(["ModelError"]),
                BadRequest,
            ),
            (
                Failure::http(424, "Received client error (400) from primary with message \"{\"error\":\"bad input\"}\""),
                ClientError,
            ),
        ]);
    }
}
