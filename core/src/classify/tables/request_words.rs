//! (batch 34a) A request the server or the model cannot take, in words that come without a
//! status or under one that says nothing (a 200 with an error body, a wrapper's class):
//! - Chinese words for "the call's parameters are wrong" (Zhipu 1210 "API 调用参数有误，请检查文档。",
//!   docs.bigmodel.cn/cn/faq/api-code; 参数错误 / 参数无效, the same family in the other Chinese
//!   APIs' tables), read as the English "invalid parameter" is.
//! - Volcengine Ark's `InvalidParameter` message "One or more parameters specified in the request
//!   are not valid" (www.volcengine.com/docs/82379/1299023), statusless behind one-api.
//! - A local server asked for images by a model without its vision part: LM Studio "Vision
//!   add-on is not loaded, but images were provided for processing" (under 200, inside
//!   "Error in iterating prediction stream"); llama.cpp server "image input is not supported -
//!   hint: if this is unexpected, you may need to provide the mmproj" (tools/server
//!   server-common.cpp). The same request fails every time: stated, so a stream's or a 200's
//!   words do not make it a cut.
//! - A per-request token cap, OpenAI's embeddings `max_tokens_per_request` ("Requested 319487
//!   tokens, max 300000 tokens per request"): the input is too large, as a context overflow
//!   is; a per-minute cap ("tokens per min") is another family and stays a rate.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read with the permanent phrases (and the stated ones: every row here states its nature).
pub const PERMANENT: &[Phrase] = &[
    said("参数有误", BadRequest),
    said("参数错误", BadRequest),
    said("参数无效", BadRequest),
    said("parameters specified in the request are not valid", BadRequest),
    stated("vision add-on is not loaded", BadRequest),
    stated("but images were provided", BadRequest),
    stated("image input is not supported", BadRequest),
    stated("max_tokens_per_request", ContextOverflow),
    stated("tokens per request", ContextOverflow),
];
