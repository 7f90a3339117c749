//! (batch 27) JSON-RPC 2.0's standard error codes as MCP SDKs render them: the TypeScript SDK's
//! `McpError` prints "MCP error <code>: <message>", the Python SDK's `McpError` the message
//! with the code beside it ("(Code -32603)"), hosts the bare message ("Error calling tool
//! 'x': Method not found"). Codes from jsonrpc.org/specification §5.1 and the MCP SDKs'
//! `ErrorCode` enums; each row names the nature any SDK's rendering of the code states.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Codes and words a repeat of the same request cannot change.
pub const PERMANENT: &[Phrase] = &[
    // -32700 Parse error, -32600 Invalid Request, -32602 Invalid params: the peer could not
    // read or accept what was sent.
    said("error -32700", BadRequest),
    said("error -32600", BadRequest),
    said("error -32602", BadRequest),
    said("code -32700", BadRequest),
    said("code -32600", BadRequest),
    said("code -32602", BadRequest),
    // -32601 Method not found: the peer lacks the method or capability (a client asked for
    // sampling/createMessage it never declared; a server without `tools/call`).
    said("error -32601", BadRequest),
    said("code -32601", BadRequest),
    said("method not found", BadRequest),
    // A capability the peer did not declare, in the SDKs' own words (python-sdk / FastMCP
    // "Client does not support sampling capability", mcp-use "Sampling not supported";
    // typescript-sdk server's "Client does not support elicitation (required for
    // elicitation/create)", rmcp's "Client does not support elicitation").
    said("sampling not supported", BadRequest),
    said("does not support sampling", BadRequest),
    said("does not support elicitation", BadRequest),
    // MCP's -32002 Resource not found.
    said("error -32002", NotFound),
    said("code -32002", NotFound),
    // A command the host runs that its shell cannot parse (bash's "syntax error near
    // unexpected token", a launcher script overwritten by a binary): every start fails the
    // same way, whatever internal error (-32603) the server wraps it in.
    stated("syntax error near unexpected token", Configuration),
    // A server's tool list that failed the client's schema (Claude Code printing zod's
    // issues with the path ["tools", 0, "outputSchema", "type"]): the reply is unusable.
    said("\"outputschema\"", InvalidResponse),
    said("\"inputschema\"", InvalidResponse),
];

/// Codes and words a later attempt may get past.
pub const TRANSIENT: &[Phrase] = &[
    // -32603 Internal error: the peer failed handling a valid request.
    said("error -32603", ServerError),
    said("code -32603", ServerError),
    // An MCP host's client to its server gone (Trae's "客户端已关闭" = client closed, its
    // English UI "Client closed"; the TS SDK's -32000 "Connection closed").
    said("client closed", Connection),
    said("客户端已关闭", Connection),
];

#[cfg(test)]
mod batch27b_tests {
    use crate::category::Category;
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    fn check(cases: &[(&str, Category)]) {
        for (msg, want) in cases {
            let c = classify(&Failure::new(*msg));
            assert_eq!(c.category, *want, "{msg}");
            assert_eq!(c.transient, want.is_transient(), "{msg}");
        }
    }

    /// JSON-RPC's standard codes in each SDK's rendering.
    #[test]
    fn jsonrpc_codes_as_sdks_print_them() {
        check(&[
            // typescript-sdk McpError (modelcontextprotocol/typescript-sdk#738)
            ("McpError: MCP error -32601: Method not found", BadRequest),
            ("MCP error -32602: Invalid params: unknown tool", BadRequest),
            ("MCP error -32700: Parse error", BadRequest),
            ("MCP error -32002: Resource not found: file:///x", NotFound),
            // python-sdk McpError with its code beside it
            ("Method not found (Code -32601)", BadRequest),
            // LM Studio's tool call print (lmstudio-bug-tracker#325)
            ("Error calling tool 'tool_name': Method not found", BadRequest),
            // python-sdk / FastMCP, mcp-use
            ("ToolError: Client does not support sampling capability.", BadRequest),
            ("Error: Client does not support elicitation (required for elicitation/create)", BadRequest),
            ("Sampling not supported", BadRequest),
            // -32603 with nothing more
            ("MCP error -32603: Internal error", ServerError),
            // cc-mcp-enhanced#5: the wrapped command cannot be parsed by its shell
            ("MCP error -32603: Claude CLI execution failed: Command failed with exit code 2 Stderr: /u/.claude/local/bin/claude: line 3: syntax error near unexpected token `c'", Configuration),
            // Trae's MCP panel
            ("客户端已关闭", Connection),
            ("MCP server x: Client closed", Connection),
        ]);
    }
}
