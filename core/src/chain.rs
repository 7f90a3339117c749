//! How the links of an exception chain make one failure record (CONTRACT §1).
//!
//! SDKs wrap: openai's `APIConnectionError` is raised `from` httpx's `ConnectError`, RubyLLM's
//! errors carry Faraday's as `#cause`, a gateway's 500 wraps the provider's 400. A binding
//! walks the chain (Python `__cause__` / `__context__`, Ruby `#cause`) and reads each link's
//! raw fields into a [`Link`]; it merges nothing. The one rule that merges them lives here, so
//! the same live chain gives the same record, and the same decision, in every language.

use crate::classify::text::head;
use crate::failure::{Failure, Headers};

/// How many links of a chain are read (a cycle or a deep chain stops there).
pub const MAX_LINKS: usize = crate::failure::MAX_CAUSES;

/// How many bytes of an inner link's message are kept as text evidence.
const MAX_INNER_MESSAGE: usize = 4 * 1024;

/// One exception of a chain as a binding read it: its own class names (most specific first)
/// and what it says about the HTTP response, nothing looked up elsewhere.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Link {
    /// The class and its ancestors, most specific first.
    pub error_class: Vec<String>,
    /// The status this exception (or its attached response) carries.
    pub status: Option<u16>,
    /// The headers of its attached response; empty when it has none.
    pub headers: Headers,
    /// Its response body, as text.
    pub body: Option<String>,
    /// Its message (`str(exc)`, `exc.message`).
    pub message: String,
    /// Retries its client library made before raising (`x-stainless-retry-count`).
    pub client_retries: Option<u8>,
}

/// Which status speaks for the chain, best first: a stated client error (4xx) is the provider's
/// own verdict on the request, and a wrapper's 5xx around it ("unable to parse response", a
/// gateway's 500) would only retry what gets the same answer again; then any other error
/// status; last a 1xx-3xx, which carries no evidence of failure.
fn rank(status: u16) -> u8 {
    match status {
        400..=499 => 0,
        500..=599 => 1,
        _ => 2,
    }
}

impl Failure {
    /// The record of a chain, links outermost first (at most [`MAX_LINKS`] are read):
    /// - `error_class`: every link's classes, outermost first;
    /// - `status`: the best-ranked status of the chain (a 4xx over a 5xx over anything else),
    ///   the outermost of that rank;
    /// - `headers` and `body`: that link's own, else the outermost link that has them (a
    ///   wrapper without headers keeps the `retry-after` of what it wraps; a blank body is none);
    /// - `message`: the outermost non-empty message; every other distinct message of the chain
    ///   is kept in `inner_messages`, read as text evidence;
    /// - `client_retries`: the outermost link's that has one.
    pub fn from_chain(links: impl IntoIterator<Item = Link>) -> Failure {
        let links: Vec<Link> = links.into_iter().take(MAX_LINKS).collect();
        let speaker = links
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.status.map(|s| (rank(s), i)))
            .min()
            .map(|(_, i)| i);
        // The speaker first, then the chain in order.
        let order: Vec<usize> = speaker
            .into_iter()
            .chain((0..links.len()).filter(|i| Some(*i) != speaker))
            .collect();
        let mut f = Failure {
            status: speaker.and_then(|i| links[i].status),
            ..Failure::default()
        };
        f.headers = order
            .iter()
            .map(|&i| &links[i].headers)
            .find(|h| !h.is_empty())
            .cloned()
            .unwrap_or_default();
        // A body that says nothing (an empty response text) is no body.
        f.body = order
            .iter()
            .filter_map(|&i| links[i].body.as_ref())
            .find(|b| !b.trim().is_empty())
            .cloned();
        f.client_retries = links.iter().find_map(|l| l.client_retries);
        let first_said = links.iter().position(|l| !l.message.trim().is_empty());
        let mut inner: Vec<String> = Vec::new();
        for (i, link) in links.into_iter().enumerate() {
            f.error_class.extend(link.error_class);
            if Some(i) == first_said {
                f.message = link.message;
            } else if !link.message.trim().is_empty()
                && link.message != f.message
                && !inner.contains(&link.message)
            {
                inner.push(head(&link.message, MAX_INNER_MESSAGE).to_owned());
            }
        }
        f.inner_messages = inner.into();
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(status: Option<u16>, message: &str) -> Link {
        Link {
            status,
            message: message.into(),
            ..Link::default()
        }
    }

    #[test]
    fn a_stated_client_error_speaks_over_the_wrapper_5xx_around_it() {
        let mut inner = link(Some(400), "bad");
        inner.body = Some(r#"{"error":{"code":"context_length_exceeded"}}"#.into());
        let f = Failure::from_chain([link(Some(500), "wrapped"), inner]);
        assert_eq!(f.status, Some(400));
        assert_eq!(f.body.as_deref().map(|b| b.contains("context")), Some(true));
        assert_eq!(f.message, "wrapped");
        assert_eq!(&f.inner_messages[..], ["bad"]);
    }

    #[test]
    fn fields_the_speaker_lacks_come_from_the_outermost_link_that_has_them() {
        let mut outer = link(Some(503), "");
        outer.body = Some("overloaded_error".into());
        let mut inner = link(None, "inner says");
        inner.headers.insert("Retry-After", "7");
        inner.client_retries = Some(2);
        let f = Failure::from_chain([outer, inner]);
        assert_eq!(f.status, Some(503));
        assert_eq!(f.headers.get("retry-after"), Some("7"));
        assert_eq!(f.body.as_deref(), Some("overloaded_error"));
        assert_eq!(f.message, "inner says", "the outermost non-empty message");
        assert!(f.inner_messages.is_empty());
        assert_eq!(f.client_retries, Some(2));
    }

    #[test]
    fn of_one_rank_the_outermost_status_speaks_and_a_2xx_never_beats_an_error() {
        let f = Failure::from_chain([
            link(Some(200), "a"),
            link(Some(502), "b"),
            link(Some(503), "c"),
        ]);
        assert_eq!(f.status, Some(502));
        assert_eq!(
            (f.message.as_str(), &f.inner_messages[..]),
            ("a", &["b".to_owned(), "c".to_owned()][..])
        );
    }

    #[test]
    fn classes_concatenate_outermost_first_and_long_chains_stop() {
        let links = (0..40).map(|i| Link {
            error_class: vec![format!("E{i}")],
            message: "same".into(),
            ..Link::default()
        });
        let f = Failure::from_chain(links);
        assert_eq!(f.error_class.len(), MAX_LINKS);
        assert_eq!(f.error_class[0], "E0");
        assert!(
            f.inner_messages.is_empty(),
            "repeats of the message add nothing"
        );
        assert_eq!(Failure::from_chain(Vec::new()), Failure::default());
    }
}
