//! (batch 33a) Words that only name the layer that failed, not how: a client's frame around
//! the cause it prints after them. Read as the failure only where nothing more specific is
//! stated; a cause the text states past them (a timeout above all), or a class of the chain
//! that names one, is the failure (`cause_past_layer_words` in `classify`).
//!
//! Each row is a phrase of the transient tables, so the reading that found it can look past it.

/// A link's frame around the cause it prints.
pub const LINK_FRAMES: &[&str] = &[
    // Spring `ResourceAccessException` from `RestTemplate`/`RestClient`: "I/O error on {method}
    // request for \"{url}\": {the IOException's message}" (spring-framework
    // DefaultResponseErrorHandler / RestTemplate.createResourceAccessException).
    "i/o error on",
    // Vercel AI SDK provider-utils `handleFetchError`: "Cannot connect to API: {cause.message}"
    // (undici's "Connect Timeout Error", "other side closed", "connect ECONNREFUSED ...").
    "cannot connect to api",
    // java.net.ConnectException and SocketException: the class says a socket failed, the
    // message says how ("Connection refused", "Connection timed out", "Socket closed").
    "connectexception",
    "socketexception",
];
