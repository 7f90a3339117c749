//! (batch 20) A status another layer's text quotes. A parse error that quotes the first bytes of
//! a server's 5xx page ("invalid json response body at ... reason: Unexpected token 'I",
//! \"Internal s\"... is not valid JSON": node-fetch's FetchError around V8's JSON.parse, which
//! quotes the first ten characters) is the 5xx, not a malformed API reply: the server answered
//! its error page as text. And Python requests' `raise_for_status` text ("400 Client Error: Bad
//! Request for url: ...", requests/models.py) quoted inside a wrapper's 500 is the inner
//! client error: it fails again the same way.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// The first words of a 5xx page (its reason phrase, nginx's and Envoy's own bodies) as a JSON
/// parser quotes them; read before the parse error's own words.
pub const SERVER_PAGES: &[Phrase] = &[
    said("\"internal s", ServerError),
    said("\"bad gatewa", ServerError),
    said("\"service un", ServerError),
    said("\"gateway ti", Timeout),
    said("\"upstream c", Connection),
    said("\"upstream r", Timeout),
];

/// requests' client-error line for a stated 4xx; these beat a wrapper's 5xx around them.
pub const CLIENT_ERRORS: &[Phrase] = &[
    stated("client error: bad request for url", BadRequest),
    stated("client error: unprocessable entity for url", Unprocessable),
    stated("client error: payment required for url", PaymentRequired),
    stated("client error: unauthorized for url", Unauthorized),
];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn a_quoted_5xx_page_is_the_5xx() {
        for text in [
            "FetchError: invalid json response body at https://example.test/v1 reason: Unexpected token 'B', \"Bad Gatewa\"... is not valid JSON",
            "SyntaxError: Unexpected token 'S', \"Service Un\"... is not valid JSON",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (ServerError, true), "{text}");
        }
        // An HTML page with no reason phrase stays the parse error it is.
        let c = classify(&Failure::new(
            "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
        ));
        assert!(!c.transient, "{c:?}");
    }

    #[test]
    fn a_requests_client_error_inside_a_5xx_is_the_client_error() {
        let c = classify(&Failure::http(
            502,
            "upstream failed: 400 Client Error: Bad Request for url: https://example.test/v1/chat",
        ));
        assert_eq!((c.category, c.transient), (BadRequest, false));
        let c = classify(&Failure::http(
            500,
            "proxy: 401 Client Error: Unauthorized for url: https://example.test/v1/chat",
        ));
        assert_eq!((c.category, c.transient), (Unauthorized, false));
    }
}
