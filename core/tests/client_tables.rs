//! The clients' published failure lists (`core/src/classify/tables/clients.rs`, curl's
//! CURLcode list, the WebSocket close codes, gRPC's status names) drive classification of the
//! text a client prints: each row decides its category alone, under a connection class, and in
//! the sentences the clients' sources print.

use retry_core::__private::classify::classify;
use retry_core::__private::classify::tables::{clients, CURL_CODES, WEBSOCKET_CLOSE_CODES};
use retry_core::{Category, Failure};

fn check(wrong: &mut Vec<String>, what: &str, f: &Failure, want: Category) {
    let c = classify(f);
    if c.category != want || c.transient != want.is_transient() {
        wrong.push(format!(
            "{what}: {:?} got {:?} (transient {}), want {want:?}",
            f.message, c.category, c.transient
        ));
    }
}

fn assert_none(wrong: Vec<String>, of: usize) {
    assert!(
        wrong.is_empty(),
        "{} of {of} decided otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every row, as the only words of a logged failure, decides its category; a network row also
/// decides under a connection class that cannot tell (Faraday's `ConnectionFailed`).
#[test]
fn every_client_row_decides_its_category() {
    let mut wrong = Vec::new();
    let mut n = 0;
    for t in clients::TABLES {
        assert!(t.source.contains('.') && !t.rows.is_empty(), "{}", t.client);
        for r in t.rows {
            assert_eq!(
                r.text,
                r.text.to_lowercase(),
                "{}: rows are lower-case",
                t.client
            );
            n += 1;
            let f = Failure::new(format!("call failed ({})", r.text));
            check(&mut wrong, t.client, &f, r.category);
            if matches!(
                r.category,
                Category::Connection | Category::Configuration | Category::Timeout
            ) {
                let f = f.with_class(["Faraday::ConnectionFailed", "Faraday::Error"]);
                check(&mut wrong, t.client, &f, r.category);
            }
        }
    }
    assert!(n > 150, "only {n} rows");
    assert_none(wrong, n);
}

/// Every curl code listed, as curl's command line prints it, decides its category; a code not
/// listed (an FTP code) is no evidence.
#[test]
fn every_curl_code_decides_its_category() {
    let mut wrong = Vec::new();
    for (code, want) in CURL_CODES {
        let f = Failure::new(format!("curl: ({code}) transfer failed"));
        check(&mut wrong, "curl", &f, *want);
    }
    let ftp = classify(&Failure::new("curl: (9)"));
    assert_eq!(ftp.category, Category::Unknown);
    assert_none(wrong, CURL_CODES.len());
}

/// Every close code listed, in the words of three WebSocket clients, decides its category.
#[test]
fn every_websocket_close_code_decides_its_category() {
    let mut wrong = Vec::new();
    for (code, want) in WEBSOCKET_CLOSE_CODES {
        for text in [
            format!("WebSocket closed with code {code}"),
            // gorilla/websocket's CloseError
            format!("websocket: close {code}"),
            // python-websockets' ConnectionClosedError
            format!("received {code}; then sent {code}"),
        ] {
            check(&mut wrong, "websocket", &Failure::new(text), *want);
        }
    }
    // A normal closure is no failure's evidence.
    let normal = classify(&Failure::new("WebSocket closed with code 1000"));
    assert_eq!(normal.category, Category::Unknown);
    assert_none(wrong, WEBSOCKET_CLOSE_CODES.len() * 3);
}

/// Messages as each client's source prints them (the shape of the source's format string, with
/// a made-up host and address), and what they are.
#[test]
fn client_messages_as_printed() {
    use Category::*;
    let cases: &[(&str, &str, Category)] = &[
        // Node.js system errors (nodejs.org/api/errors.html), through node-fetch's FetchError.
        ("node", "request to https://api.example.com/v1/chat failed, reason: connect EHOSTUNREACH 10.0.0.1:443", Connection),
        ("node", "getaddrinfo ENOTFOUND api.example.invalid", Configuration),
        ("node", "write EPIPE", Connection),
        ("node", "Error: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)", Configuration),
        // undici (lib/core/errors.js messages, docs/api/Errors.md codes).
        ("undici", "ConnectTimeoutError: Connect Timeout Error (attempted address: api.example.com:443, timeout: 10000ms)", Timeout),
        ("undici", "HeadersTimeoutError: Headers Timeout Error", Timeout),
        ("undici", "BodyTimeoutError: Body Timeout Error", Timeout),
        ("undici", "ResponseContentLengthMismatchError: Response body length does not match content-length header", StreamInterrupted),
        ("undici", "TypeError: fetch failed\n  [cause]: SocketError: other side closed { code: 'UND_ERR_SOCKET' }", Connection),
        // Go net/http, net, crypto/tls.
        ("go", "Post \"https://api.example.com/v1/chat\": net/http: TLS handshake timeout", Timeout),
        ("go", "Post \"https://api.example.com/v1/chat\": dial tcp 10.0.0.1:443: connect: no route to host", Connection),
        ("go", "Post \"https://api.example.com/v1/chat\": http2: client connection lost", Connection),
        ("go", "Get \"https://api.example.com\": dial tcp: lookup api.example.com on 127.0.0.53:53: server misbehaving", Connection),
        ("go", "Post \"https://localhost:11434/api/chat\": http: server gave HTTP response to HTTPS client", Configuration),
        ("go", "Post \"https://api.example.com\": tls: failed to verify certificate: x509: certificate signed by unknown authority", Configuration),
        ("go", "Post \"https://api.example.com\": net/http: HTTP/1.x transport connection broken: malformed HTTP response \"\\x00\\x00\\x12\\x04\"", Configuration),
        ("go", "Post \"https://api.example.com\": read tcp 10.0.0.2:5123->10.0.0.1:443: i/o timeout", Timeout),
        // .NET HttpRequestException / SocketException / HttpIOException.
        (".net", "System.Net.Http.HttpRequestException: No such host is known. (api.example.com:443)", Configuration),
        (".net", "System.Net.Sockets.SocketException (10060): A connection attempt failed because the connected party did not properly respond after a period of time, or established connection failed because connected host has failed to respond.", Timeout),
        (".net", "System.Net.Http.HttpIOException: The response ended prematurely. (ResponseEnded)", Connection),
        (".net", "System.Net.Http.HttpRequestException: The HTTP/2 server reset the stream. HTTP/2 error code 'INTERNAL_ERROR' (0x2).", Connection),
        (".net", "System.Security.Authentication.AuthenticationException: The remote certificate is invalid according to the validation procedure: RemoteCertificateNameMismatch", Configuration),
        // Java, OkHttp, Apache HttpClient, Spring.
        ("java", "java.net.SocketTimeoutException: timeout", Timeout),
        ("java", "java.net.UnknownHostException: api.example.com: Name or service not known", Configuration),
        ("okhttp", "okhttp3.internal.http2.StreamResetException: stream was reset: INTERNAL_ERROR", Connection),
        ("java", "javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target", Configuration),
        ("java", "java.net.http.HttpConnectTimeoutException: HTTP connect timed out", Timeout),
        ("apache", "org.apache.hc.core5.http.NoHttpResponseException: api.example.com:443 failed to respond", Connection),
        ("spring", "I/O error on POST request for \"https://api.example.com/v1/chat\": Connection reset", Connection),
        // Elixir Mint / Finch.
        ("mint", "** (Mint.TransportError) socket closed", Connection),
        ("mint", "%Mint.TransportError{reason: :nxdomain}", Configuration),
        ("mint", "%Mint.TransportError{reason: :econnrefused}", Connection),
        ("mint", "%Mint.HTTPError{reason: {:server_closed_request, :refused_stream}, module: Mint.HTTP2}", Connection),
        // Ruby.
        ("ruby", "EOFError: end of file reached", Connection),
        ("ruby", "SSL_connect SYSCALL returned=5 errno=0 peeraddr=10.0.0.1:443 state=error: unexpected eof while reading", Connection),
        ("ruby", "Net::HTTPBadResponse: wrong status line: \"\\x15\\x03\\x01\\x00\\x02\\x02\"", InvalidResponse),
        ("ruby", "Errno::EHOSTUNREACH: No route to host - connect(2) for \"api.example.com\" port 443", Connection),
        // Python clients printed as text.
        ("urllib3", "('Connection broken: InvalidChunkLength(got length b'', 0 bytes read)', InvalidChunkLength(got length b'', 0 bytes read))", Connection),
        ("aiohttp", "Cannot connect to host api.example.com:443 ssl:default [Connect call failed ('10.0.0.1', 443)]", Connection),
        ("websockets", "websockets.exceptions.InvalidMessage: did not receive a valid HTTP response", Connection),
        ("httpx", "httpx.ReadTimeout: The read operation timed out", Timeout),
        // OpenSSL / BoringSSL reasons, through curl and Python's ssl.
        ("boringssl", "curl: (35) BoringSSL: error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE", Configuration),
        ("openssl", "[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (_ssl.c:1006)", Connection),
        ("openssl", "SSL routines::decryption failed or bad record mac", Connection),
        // gRPC status names.
        ("grpc-go", "rpc error: code = InvalidArgument desc = Request contains an invalid argument.", BadRequest),
        ("grpc-go", "rpc error: code = Unauthenticated desc = Request had invalid authentication credentials.", Unauthorized),
        ("grpc-python", "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.PERMISSION_DENIED\n\tdetails = \"Permission denied on resource project\"", Forbidden),
        ("grpc-dotnet", "Status(StatusCode=\"Unavailable\", Detail=\"Error starting gRPC call.\")", ServerError),
        ("grpc-java", "OUT_OF_RANGE: the requested range is outside the file", BadRequest),
        ("grpc-js", "14 UNAVAILABLE: No connection established", ServerError),
        ("grpc-js", "4 DEADLINE_EXCEEDED: Deadline exceeded", Timeout),
        ("grpc-js", "16 UNAUTHENTICATED: Request had invalid authentication credentials.", Unauthorized),
        // Apple URLSession, Dart, Erlang ssl.
        ("urlsession", "Error Domain=NSURLErrorDomain Code=-1005 \"The network connection was lost.\"", Connection),
        ("urlsession", "Error Domain=NSURLErrorDomain Code=-1003 \"A server with the specified hostname could not be found.\"", Configuration),
        ("dart", "ClientException: Connection closed before full header was received, uri=https://api.example.com/v1/chat", Connection),
        ("erlang", "TLS client: In state certify at ssl_handshake.erl:2138 generated CLIENT ALERT: Fatal - Unknown CA", Configuration),
        ("hackney", "%HTTPoison.Error{reason: :checkout_timeout, id: nil}", Timeout),
        // Vercel AI SDK names.
        ("ai-sdk", "AI_NoObjectGeneratedError: No object generated: response did not match schema.", Validation),
        ("ai-sdk", "AI_LoadAPIKeyError: OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY environment variable.", Configuration),
        ("grpc", "Received RST_STREAM with code 2 triggered by internal client error", Connection),
        // HTTP/2 error codes (RFC 9113 §7).
        ("h2", "stream error received: REFUSED_STREAM", Connection),
        ("h2", "connection error received: ENHANCE_YOUR_CALM", RateLimited),
        // hyper / reqwest.
        ("hyper", "hyper::Error(IncompleteMessage)", Connection),
        ("hyper-util", "client error (Connect): tcp connect error: Connection refused (os error 111)", Connection),
        ("hyper", "error reading a body from connection: unexpected end of file", StreamInterrupted),
        // Python built-in and asyncio exception names.
        ("python", "asyncio.exceptions.TimeoutError", Timeout),
        ("python", "ConnectionResetError: [WinError 10054] 远程主机强迫关闭了一个现有的连接。", Connection),
        ("python", "ssl.SSLCertVerificationError: hostname 'api.example.com' doesn't match", Configuration),
    ];
    let mut wrong = Vec::new();
    for (client, text, want) in cases {
        check(&mut wrong, client, &Failure::new(*text), *want);
    }
    assert_none(wrong, cases.len());
}

/// A status stated in words, in the forms clients' sources print it, is read as that status.
#[test]
fn statuses_stated_in_words() {
    use Category::*;
    let cases: &[(&str, &str, Category)] = &[
        ("requests", "429 Client Error: Too Many Requests for url: https://api.example.com/v1/chat", RateLimited),
        ("requests", "503 Server Error: Service Unavailable for url: https://api.example.com/v1/chat", ServerError),
        ("httpx", "Client error '401 Unauthorized' for url 'https://api.example.com/v1/chat'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401", Unauthorized),
        ("httpx", "Server error '502 Bad Gateway' for url 'https://api.example.com/v1/chat'", ServerError),
        ("urllib", "HTTP Error 429: Too Many Requests", RateLimited),
        ("axios", "Request failed with status code 429", RateLimited),
        ("got", "Response code 429 (Too Many Requests)", RateLimited),
        ("curl", "curl: (22) The requested URL returned error: 404", NotFound),
        ("guzzle", "Client error: `POST https://api.example.com/v1/chat` resulted in a `429 Too Many Requests` response", RateLimited),
        ("java", "Server returned HTTP response code: 503 for URL: https://api.example.com/v1/chat", ServerError),
        ("okhttp/retrofit", "HTTP 429 Too Many Requests", RateLimited),
        (".net", "Response status code does not indicate success: 401 (Unauthorized).", Unauthorized),
        ("faraday", "the server responded with status 429", RateLimited),
        ("agents", "API Error (500) Internal error", ServerError),
        ("logs", "HTTP/1.1 503 Service Unavailable", ServerError),
        ("logs", "request failed: status: 429", RateLimited),
        ("logs", "upstream answered code=429", RateLimited),
        ("logs", "{ statusCode: 404, message: 'model not found' }", NotFound),
        ("logs", "status_code=503 retrying", ServerError),
        // The outer envelope's status wins over what its message quotes.
        ("openai-python", "Error code: 400 - {'error': {'message': 'Invalid tool result: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}', 'type': 'invalid_request_error', 'param': None, 'code': None}}", BadRequest),
        ("google-genai", "400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'Unknown name \"rate limit exceeded\": Cannot find field.', 'status': 'INVALID_ARGUMENT'}}", BadRequest),
        ("vercel-ai", "AI_APICallError: {\"statusCode\":503,\"message\":\"Service Unavailable\"}", ServerError),
    ];
    let mut wrong = Vec::new();
    for (client, text, want) in cases {
        check(&mut wrong, client, &Failure::new(*text), *want);
    }
    assert_none(wrong, cases.len());
}

/// Every phrase of the other languages decides as its English twin would: alone, and (a
/// balance or context row) over a 429 that carries it; a day's window turns a 429 into a quota
/// no retry budget outlasts.
#[test]
fn every_phrase_in_other_languages_decides() {
    use retry_core::__private::classify::tables::words;
    let mut wrong = Vec::new();
    let mut n = 0;
    for r in words::PERMANENT.iter().chain(words::TRANSIENT) {
        n += 1;
        check(
            &mut wrong,
            "words",
            &Failure::new(format!("Error: {}", r.text)),
            r.category,
        );
        // The same words at the head of a sentence, capitalised as a server writes them.
        let mut cap = r.text.chars();
        let first: String = cap
            .next()
            .into_iter()
            .flat_map(char::to_uppercase)
            .collect();
        let capitalised = format!("{first}{}.", cap.as_str());
        check(&mut wrong, "words", &Failure::new(capitalised), r.category);
        if r.stated {
            check(
                &mut wrong,
                "words over 429",
                &Failure::http(429, r.text),
                r.category,
            );
        }
    }
    for r in words::LONG_WINDOW {
        n += 1;
        let f = Failure::http(429, format!("Error 429: 1000 requests {}", r.text));
        check(&mut wrong, "long window", &f, Category::PaymentRequired);
    }
    // A window of a minute stays a rate limit.
    let minute = classify(&Failure::http(429, "Слишком много запросов: 60 в минуту"));
    assert_eq!(minute.category, Category::RateLimited);
    assert_none(wrong, n);
}
