//! Classifies the README's benchmark failures N times: `bench/callgrind_classify.sh` counts its
//! instructions per classification under callgrind (deterministic, unlike wall time on a shared
//! machine).

use retry_core::{classify, Failure};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(10_000, |s| s.parse().unwrap());
    let openai_429 = Failure::http(429, "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 27904, Requested 5000. Please try again in 5.808s.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}")
        .with_header("retry-after", "7")
        .with_body(r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 27904, Requested 5000. Please try again in 5.808s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#)
        .with_class(["openai.RateLimitError", "openai.APIStatusError", "openai.APIError", "openai.OpenAIError", "Exception"]);
    let anthropic_529 = Failure::http(529, "Overloaded").with_body(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    let bare_503 = Failure::http(503, "Service Unavailable");
    let faraday = Failure::new(
        "Failed to open TCP connection to api.openai.com:443 (Connection refused - connect(2))",
    )
    .with_class([
        "Faraday::ConnectionFailed",
        "Faraday::Error",
        "StandardError",
    ]);
    let which = std::env::args().nth(2).unwrap_or_default();
    let cases: Vec<&Failure> = match which.as_str() {
        "openai" => vec![&openai_429],
        "anthropic" => vec![&anthropic_529],
        "bare" => vec![&bare_503],
        "faraday" => vec![&faraday],
        _ => vec![&openai_429, &anthropic_529, &bare_503, &faraday],
    };
    let mut x = 0usize;
    for _ in 0..n {
        for f in &cases {
            x += classify(f).category as usize;
        }
    }
    println!("{x}");
}
