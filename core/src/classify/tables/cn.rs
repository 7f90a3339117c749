//! Providers in China, whose codes are their own numbers and names.
//! Each table is one provider's published error codes, one fact a row, with its source.

use super::{Envelope, ProviderTable, Read};

use super::{doc, fact, generic, generic_doc, row};
use crate::category::Category::*;

/// The tables of this family, in lookup order (the first row of a code wins).
pub const TABLES: &[ProviderTable] = &[
    ProviderTable {
        provider: "Zhipu GLM / z.ai",
        source: "docs.bigmodel.cn/cn/faq/api-code",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Zhipu GLM / z.ai, business codes (docs.bigmodel.cn/cn/faq/api-code):
            row("1000", Unauthorized),    // 身份验证失败
            row("1001", Unauthorized),    // no Authentication header
            row("1002", Unauthorized),    // Authentication Token 非法
            row("1003", Unauthorized),    // token expired
            row("1004", Unauthorized),    // token verification failed
            row("1110", Forbidden),       // account inactive
            row("1111", Forbidden),       // account does not exist
            row("1112", Forbidden),       // account locked
            row("1113", PaymentRequired), // 您的账户已欠费,请充值后重试 (429)
            row("1120", ServerError),     // 无法成功访问您的账户,请稍后重试
            row("1121", Forbidden),       // account locked for violations
            row("1210", BadRequest),      // API 调用参数有误
            row("1211", NotFound),        // 模型不存在
            row("1212", BadRequest),      // method not supported by the model
            row("1213", BadRequest),      // parameter missing
            row("1214", BadRequest),      // parameter invalid
            row("1215", BadRequest),      // parameters that exclude each other
            row("1220", Forbidden),       // 您无权访问
            row("1221", NotFound),        // API retired
            row("1222", NotFound),        // API does not exist
            row("1234", ServerError),     // 网络错误
            row("1261", ContextOverflow), // Prompt 超长
            row("1301", ContentFiltered), // 不安全或敏感内容
            row("1302", RateLimited),     // 并发数过高 / 速率限制
            row("1303", RateLimited),     // 频率过高
            row("1304", PaymentRequired), // 今日调用次数限额: resets tomorrow (CONTRACT §2)
            row("1305", RateLimited),     // 已触发流量限制 / 访问量过大,请稍后再试
            row("1308", PaymentRequired), // usage cap of the plan, reset at next_flush_time
            row("1309", PaymentRequired), // GLM Coding Plan expired
            row("1310", PaymentRequired), // weekly/monthly cap
            row("1311", Forbidden),       // plan does not include the model
            row("1312", Overloaded),      // 该模型当前访问量过大,请您稍后再试
            // (batch 27) The rest of the page's table (docs.bigmodel.cn/cn/faq/api-code.md with
            // its statuses; cn/api/api-code):
            row("1005", Unauthorized), // 401 已开启二次认证保护,需要二次认证登录
            row("1200", ServerError),  // 500 API 调用失败
            row("1300", Forbidden),    // API 调用被策略阻止
        ],
    },
    ProviderTable {
        provider: "Alibaba DashScope / Bailian",
        source: "help.aliyun.com/zh/model-studio/error-code",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            // Alibaba DashScope / Bailian (help.aliyun.com/zh/model-studio/error-code):
            row("arrearage", PaymentRequired), // 400/403: Access denied, ... account is in good standing
            row("datainspectionfailed", ContentFiltered),
            row("internalerror.algo.datainspectionfailed", ContentFiltered),
            row("data_inspection_failed", ContentFiltered), // compatible mode
            row("throttling.ratequota", RateLimited),       // 429, clears within a minute
            row("throttling.allocationquota", RateLimited), // 429 tokens per minute; "Free allocated quota exceeded" is stated
            row("throttling.user", RateLimited),
            row("throttling.burstrate", RateLimited),
            row("invalidapikey", Unauthorized),
            row("modelnotfound", NotFound),
            row("accessdenied.unpurchased", Forbidden),
            generic("invalidparameter", BadRequest),
            generic("internalerror", ServerError),
        ],
    },
    // Re-checked (issue 20): the 公共错误码 page (volcengine.com/docs/82379/1299023) and the
    // 错误码 page (/1099476) render with JavaScript; their text was read as far as the search
    // excerpts and the API reference's PDF extract reach (status, code and message below). Rows
    // marked "not re-read" are from the earlier notes and were not found in what could be read.
    ProviderTable {
        provider: "Volcengine Ark",
        source: "volcengine.com/docs/82379/1299023; volcengine.com/docs/82379/1099476",
        read: Read::Excerpt,
        envelope: Envelope::OpenAi,
        rows: &[
            doc(400, "missingparameter", "The request failed because it is missing one or multiple required parameters.", BadRequest),
            doc(401, "authenticationerror", "The API key or AK/SK in the request is missing or invalid.", Unauthorized),
            doc(403, "accountoverdueerror", "The request failed because your account has an overdue balance.", PaymentRequired),
            doc(403, "accessdenied", "The request failed because you do not have access to the requested resource.", Forbidden),
            doc(404, "invalidendpointormodel.notfound", "The model or endpoint does not exist or you do not have access to it.", NotFound),
            doc(404, "invalidendpoint.notfound", "The request targeted an endpoint that does not exist.", NotFound),
            // 404: "Your account has not activated the model. Please activate the model service
            // in the Ark Console."
            doc(404, "modelnotopen", "Your account has not activated the model. Please activate the model service in the Ark Console.", Forbidden),
            doc(400, "inputtextriskdetection", "The request could not be processed because the input text includes sensitive content that violates ContentSecurityDetection.", ContentFiltered),
            doc(400, "inputimageriskdetection", "The request could not be processed because the input image includes sensitive content that violates ContentSecurityDetection.", ContentFiltered),
            doc(429, "ratelimitexceeded.endpointrpmexceeded", "The Requests Per Minute (RPM) limit of the associated endpoint for your account has been exceeded.", RateLimited),
            doc(429, "ratelimitexceeded.endpointtpmexceeded", "The Tokens Per Minute (TPM) limit of the associated endpoint for your account has been exceeded.", RateLimited),
            // Re-read from a longer search excerpt of the 错误码 page (/1099476): the closed
            // endpoint ("closed or temporarily unavailable ... 请稍后重试": retried, the call is
            // refused before any token is spent) and the output-side moderation code's row.
            generic_doc(400, "invalidparameter", "One or more parameters specified in the request are not valid.", BadRequest),
            doc(400, "invalidendpoint.closedendpoint", "The request targeted an endpoint that is currently closed or temporarily unavailable.", ServerError),
            doc(400, "outputtextriskdetection", "The request could not be processed because the output text includes sensitive content that violates ContentSecurityDetection.", ContentFiltered),
            // Not re-read (earlier notes): the output image and older moderation codes, overload
            // and internal error.
            row("outputimageriskdetection", ContentFiltered),
            row("sensitivecontentdetected", ContentFiltered),
            row("inputtextsensitivecontentdetected", ContentFiltered),
            row("outputtextsensitivecontentdetected", ContentFiltered),
            row("serveroverloaded", Overloaded),
            row("internalserviceerror", ServerError),
        ],
    },
    ProviderTable {
        provider: "Moonshot / Kimi",
        source: "platform.kimi.com/docs/api/errors",
        read: Read::Earlier,
        envelope: Envelope::OpenAi,
        rows: &[
            // Moonshot / Kimi error types (platform.kimi.com/docs/api/errors):
            row("invalid_authentication_error", Unauthorized),
            row("incorrect_api_key_error", Unauthorized),
            row("exceeded_current_quota_error", PaymentRequired), // account suspended: insufficient balance
            row("permission_denied_error", Forbidden),
            row("resource_not_found_error", NotFound),
            row("engine_overloaded_error", Overloaded),
            row("rate_limit_reached_error", RateLimited), // concurrency / RPM / TPM (TPD is read as a long window)
        ],
    },
    ProviderTable {
        provider: "MiniMax",
        source: "platform.minimax.io/docs/api-reference/errorcode",
        read: Read::Earlier,
        envelope: Envelope::MiniMax,
        rows: &[
            // MiniMax (platform.minimax.io/docs/api-reference/errorcode), base_resp.status_code:
            row("base_resp_1000", ServerError), // unknown error: retry later
            row("base_resp_1001", Timeout),     // request timeout
            row("base_resp_1002", RateLimited), // rate limit (RPM)
            row("base_resp_1004", Unauthorized),
            row("base_resp_1008", PaymentRequired), // insufficient balance
            row("base_resp_1013", ServerError),
            row("base_resp_1024", ServerError),
            row("base_resp_1026", ContentFiltered), // input sensitive
            row("base_resp_1027", ContentFiltered), // output sensitive
            row("base_resp_1033", ServerError),
            row("base_resp_1039", RateLimited),                 // TPM
            // (batch 24) Generic: 2013 is MiniMax's one code for any refused parameter ("invalid
            // params / glyph definition format error"), tool pairing included; its words say which.
            generic("base_resp_2013", BadRequest), // invalid parameters
            row("base_resp_2049", Unauthorized),                // invalid api key
            row("insufficient_balance_error", PaymentRequired), // the ModelScope relay's type for 1008
            // (batch 24) The rest of the same page's table, re-read whole as its markdown
            // (platform.minimax.io/docs/api-reference/errorcode; mirrored in petehsu/LLM-Docs
            // docs/MiniMax/English/api-reference/errorcode.md), with its message and advice:
            doc(0, "base_resp_1041", "conn limit", RateLimited), // concurrent connections
            doc(0, "base_resp_1042", "invisible character ratio limit", BadRequest),
            doc(0, "base_resp_1043", "The asr similarity check failed", BadRequest),
            doc(0, "base_resp_1044", "clone prompt similarity check failed", BadRequest),
            doc(0, "base_resp_20132", "invalid samples or voice_id", BadRequest),
            doc(0, "base_resp_2037", "voice duration too short / voice duration too long", BadRequest),
            doc(0, "base_resp_2039", "voice clone voice id duplicate", BadRequest),
            doc(0, "base_resp_2042", "You don't have access to this voice_id", Forbidden),
            doc(0, "base_resp_2045", "rate growth limit", RateLimited), // "avoid sudden increases"
            doc(0, "base_resp_2048", "prompt audio too long", BadRequest),
            // "Please wait for the resource release in the next 5-hour window": no retry budget
            // waits hours (the `usage limit exceeded` phrase reads it the same way).
            doc(0, "base_resp_2056", "usage limit exceeded", PaymentRequired),
        ],
    },
    // Re-checked (issue 20): the ERNIE error-code page (cloud.baidu.com/doc/WENXINWORKSHOP/s/
    // tlmyncueh) was read only as far as a search excerpt of Baidu's own site reaches
    // (cloud.baidu.com/theme/P/2904906-9-7-2: codes 6, 13, 14, 15, 17 and 110 with their
    // messages); Qianfan v2's rpm/tpm codes are quoted from its error-code page by NeuroLink's
    // provider notes. Rows marked "not re-read" are from the earlier notes.
    ProviderTable {
        provider: "Baidu Qianfan / ERNIE",
        source: "cloud.baidu.com/doc/WENXINWORKSHOP/s/tlmyncueh; cloud.baidu.com/theme/P/2904906-9-7-2; cloud.baidu.com/doc/WENXINWORKSHOP/s/hlzic283e",
        read: Read::Excerpt,
        envelope: Envelope::Baidu,
        rows: &[
            doc(0, "error_code_6", "No permission to access data", Forbidden),
            doc(0, "error_code_13", "Get service token failed", Unauthorized),
            doc(0, "error_code_14", "IAM Certification failed", Unauthorized),
            doc(0, "error_code_15", "app not exsits or create failed", NotFound),
            doc(0, "error_code_17", "Open api daily request limit reached", PaymentRequired),
            doc(0, "error_code_110", "Access token invalid or no longer valid", Unauthorized),
            doc(429, "rpm_rate_limit_exceeded", "Rate limit reached for RPM", RateLimited),
            doc(429, "tpm_rate_limit_exceeded", "Rate limit reached for TPM", RateLimited),
            // Re-read from the rate-limit page (cloud.baidu.com/doc/WENXINWORKSHOP/s/hlzic283e):
            // ERNIE 3.5 over its RPM / TPM answers code 336501 / 336502 with these messages.
            doc(0, "error_code_336501", "Rate limit reached for RPM", RateLimited),
            doc(0, "error_code_336502", "Rate limit reached for TPM", RateLimited),
            // Not re-read (earlier notes), with the messages they gave:
            row("error_code_1", ServerError),      // Unknown error
            row("error_code_2", ServerError),      // Service temporarily unavailable
            row("error_code_4", RateLimited),      // Open api request limit reached (cluster)
            row("error_code_18", RateLimited),     // Open api qps request limit reached
            row("error_code_19", PaymentRequired), // Open api total request limit reached
            row("error_code_111", Unauthorized),   // Access token expired
            row("error_code_336000", ServerError), // internal error
            row("error_code_336100", ServerError), // try again later

        ],
    },
    // Re-checked (issue 20) against iFlytek's own SDK documentation, which prints the Spark
    // service's whole ws error table (github.com/iFLYTEK-OP/websdk-java, doc/spark/maasapi.md,
    // 错误码 1.1), read whole: header.code, with the table's message.
    ProviderTable {
        provider: "iFlytek Spark",
        source: "github.com/iFLYTEK-OP/websdk-java doc/spark/maasapi.md (错误码 1.1 ws错误码列表)",
        read: Read::Whole,
        envelope: Envelope::IFlytek,
        rows: &[
            doc(0, "header_10000", "升级为ws出现错误", Connection),
            doc(0, "header_10001", "通过ws读取用户的消息 出错", Connection),
            doc(0, "header_10002", "通过ws向用户发送消息 出错", Connection),
            doc(0, "header_10003", "用户的消息格式有错误", BadRequest),
            doc(0, "header_10004", "用户数据的schema错误", BadRequest),
            doc(0, "header_10005", "用户参数值有错误", BadRequest),
            // The same user connected twice: one connection at a time.
            doc(0, "header_10006", "用户并发错误：当前用户已连接，同一用户不能多处同时连接。", RateLimited),
            // "Must wait for the model to answer in full before the next question."
            doc(0, "header_10007", "用户流量受限：服务正在处理用户当前的问题，需等待处理完成后再发送新的请求。", RateLimited),
            doc(0, "header_10008", "服务容量不足，联系服务商", Overloaded),
            doc(0, "header_10009", "和引擎建立连接失败", ServerError),
            doc(0, "header_10010", "接收引擎数据的错误", ServerError),
            doc(0, "header_10011", "向引擎发送数据的错误", ServerError),
            doc(0, "header_10012", "引擎内部错误", ServerError),
            doc(0, "header_10013", "用户问题涉及敏感信息，审核不通过，拒绝处理此次请求。", ContentFiltered),
            doc(0, "header_10014", "回复结果涉及到敏感信息，审核不通过，后续结果无法展示给用户。", ContentFiltered),
            doc(0, "header_10015", "appid在黑名单中", Forbidden),
            // The table's heading; its examples (未开通此功能，未开通对应版本，token不足，并发超过
            // 授权) arrive one at a time, and the words of each decide (token不足 is a payment).
            doc(0, "header_10016", "appid授权类的错误。", Forbidden),
            doc(0, "header_10019", "该错误码表示返回结果疑似敏感，建议拒绝用户继续交互", ContentFiltered),
            doc(0, "header_10110", "服务忙，请稍后再试。", Overloaded),
            doc(0, "header_10163", "请求引擎的参数异常，引擎的schema检查不通过", BadRequest),
            doc(0, "header_10222", "引擎网络异常", ServerError),
            doc(0, "header_10223", "LB找不到引擎节点", ServerError),
            doc(0, "header_10907", "token数量超过上限。对话历史+问题的字数太多，需要精简输入。", ContextOverflow),
            doc(0, "header_11200", "授权错误：该appId没有相关功能的授权或者业务量超过限制", Forbidden),
            doc(0, "header_11201", "授权错误：日流控超限。超过当日最大访问量的限制。", PaymentRequired),
            doc(0, "header_11202", "授权错误：秒级流控超限。秒级并发超过授权路数限制。", RateLimited),
            doc(0, "header_11203", "授权错误：并发流控超限。并发路数超过授权路数限制。", RateLimited),
        ],
    },
    // The same page's HTTP table, for the OpenAI-compatible endpoint (错误码 1.2).
    ProviderTable {
        provider: "iFlytek Spark",
        source: "github.com/iFLYTEK-OP/websdk-java doc/spark/maasapi.md (错误码 1.2 http错误码列表)",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(401, "无效的身份验证", Unauthorized),
            fact(401, "提供的API密钥不正确", Unauthorized),
            fact(403, "不支持的国家、地区或领土", Forbidden),
            fact(429, "请求速率限制已达上限", RateLimited),
            fact(429, "超出当前配额，请检查计划和计费详情", PaymentRequired),
            fact(500, "服务器处理请求时发生错误", ServerError),
            fact(503, "引擎当前过载，请稍后重试", Overloaded),
        ],
    },
    ProviderTable {
        provider: "SiliconFlow",
        source: "github.com/FoundationAgents/OpenManus/issues/438",
        read: Read::Earlier,
        envelope: Envelope::TopLevel,
        rows: &[
            // SiliconFlow, top-level `code` (FoundationAgents/OpenManus#438: Error code: 403 - {'code':
            // 30011, 'message': 'The selected model requires paid balance. Your paid balance is
            // insufficient. Please top up and try again.'})
            row("30011", PaymentRequired),
        ],
    },
    // ---- Tables added from each provider's own error page or SDK (issue 20).
    ProviderTable {
        provider: "DeepSeek",
        source: "api-docs.deepseek.com/quick_start/error_codes",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "Invalid Format: invalid request body format", BadRequest),
            fact(401, "Authentication Fails: authentication fails due to the wrong API key", Unauthorized),
            fact(402, "Insufficient Balance: you have run out of balance", PaymentRequired),
            fact(402, "余额不足", PaymentRequired),
            fact(422, "Invalid Parameters: your request contains invalid parameters", Unprocessable),
            fact(429, "Rate Limit Reached: you are sending requests too quickly", RateLimited),
            fact(429, "请求速率达到上限", RateLimited),
            fact(500, "Server Error: our server encounters an issue", ServerError),
            fact(503, "Server Overloaded: the server is overloaded due to high traffic", Overloaded),
            fact(503, "服务器繁忙", Overloaded),
        ],
    },
    ProviderTable {
        provider: "StepFun",
        source: "platform.stepfun.com/docs/zh/guide/exception",
        read: Read::Whole,
        envelope: Envelope::OpenAi,
        rows: &[
            fact(400, "请求当中存在了超出参数配置的内容", BadRequest),
            fact(401, "认证无效", Unauthorized),
            fact(402, "账号当中的余额已经无法支撑本次调用", PaymentRequired),
            fact(404, "请求路径不正确", NotFound),
            fact(429, "请求频次已经超出了允许的频次", RateLimited),
            // 451: the request or the model's answer failed the safety review.
            fact(451, "请求内容或大模型响应内容中出现了无法通过安全审核的内容", ContentFiltered),
            fact(500, "服务端出现的问题", ServerError),
            fact(503, "服务端出现的问题", ServerError),
            fact(504, "服务端出现的问题", ServerError),
        ],
    },
    // Tencent Cloud API 3.0 answers every error under HTTP 200 as {"Response": {"Error": {"Code",
    // "Message"}, "RequestId"}}. Common codes, as the product pages list them (English pages
    // tencentcloud.com/document/api/1284/75543 and /zh/document/api/406/35950, read in part);
    // a code's family (the part before its `.`) names what its members share.
    ProviderTable {
        provider: "Tencent Cloud (common codes)",
        source: "tencentcloud.com/document/api/1284/75543; tencentcloud.com/zh/document/api/406/35950",
        read: Read::Excerpt,
        envelope: Envelope::Tencent,
        rows: &[
            doc(200, "actionoffline", "This API has been deprecated.", NotFound),
            // The family of the AuthFailure.* codes below, for the members not listed.
            doc(200, "authfailure", "The provided credentials could not be validated.", Unauthorized),
            doc(200, "authfailure.invalidauthorization", "Authorization in the request header is invalid.", Unauthorized),
            doc(200, "authfailure.invalidsecretid", "Invalid key (not a TencentCloud API key type).", Unauthorized),
            doc(200, "authfailure.mfafailure", "MFA failed.", Unauthorized),
            doc(200, "authfailure.secretidnotfound", "Key does not exist.", Unauthorized),
            // The clock is off by more than five minutes: the same request fails the same way.
            doc(200, "authfailure.signatureexpire", "Signature expired. Timestamp and server time cannot differ by more than five minutes.", Unauthorized),
            doc(200, "authfailure.signaturefailure", "Invalid signature. Signature calculation error.", Unauthorized),
            doc(200, "authfailure.tokenfailure", "Token error.", Unauthorized),
            doc(200, "authfailure.unauthorizedoperation", "The request is not authorized. For more information, see the authentication description in the CAM documentation.", Forbidden),
            // InternalError ("Internal error.") is DashScope's generic row above, meaning the same.
            doc(200, "invalidaction", "The API does not exist.", NotFound),
            doc(200, "requestlimitexceeded", "The number of requests exceeds the frequency limit.", RateLimited),
            doc(200, "limitexceeded", "Quota limit exceeded.", RateLimited),
            doc(200, "resourceinuse", "Resource is in use.", ClientError),
            doc(200, "resourcenotfound", "The resource does not exist.", NotFound),
            doc(200, "unsupportedoperation", "Unsupported operation.", BadRequest),
            doc(200, "nosuchversion", "The API version does not exist.", NotFound),
        ],
    },
    // Hunyuan's codes, from the SDK's generated list (TencentCloud/tencentcloud-sdk-java,
    // src/main/java/com/tencentcloudapi/hunyuan/v20230901/HunyuanErrorCode.java, read whole),
    // with the Chinese description each code carries there.
    ProviderTable {
        provider: "Tencent Hunyuan",
        source: "github.com/TencentCloud/tencentcloud-sdk-java src/main/java/com/tencentcloudapi/hunyuan/v20230901/HunyuanErrorCode.java",
        read: Read::Whole,
        envelope: Envelope::Tencent,
        rows: &[
            doc(200, "failedoperation.consoleservererror", "控制台服务异常。", ServerError),
            doc(200, "failedoperation.enginerequesttimeout", "引擎层请求超时；请稍后重试。", Timeout),
            doc(200, "failedoperation.engineservererror", "引擎层内部错误；请稍后重试。", ServerError),
            doc(200, "failedoperation.engineserverlimitexceeded", "引擎层请求超过限额；请稍后重试。", RateLimited),
            doc(200, "failedoperation.freeresourcepackexhausted", "免费资源包余量已用尽，请购买资源包或开通后付费。", PaymentRequired),
            doc(200, "failedoperation.resourcepackexhausted", "资源包余量已用尽，请购买资源包或开通后付费。", PaymentRequired),
            doc(200, "failedoperation.generateimagefailed", "图片包含敏感内容", ContentFiltered),
            doc(200, "failedoperation.partneraccountunsupport", "合作伙伴账号不允许开通，请更换账号。", Forbidden),
            doc(200, "failedoperation.servicenotactivated", "服务未开通，请前往控制台申请试用。", Forbidden),
            doc(200, "failedoperation.servicestop", "用户主动停服。", Forbidden),
            doc(200, "failedoperation.servicestoparrears", "欠费停服。", PaymentRequired),
            doc(200, "failedoperation.userunautherror", "用户未实名，请先进行实名认证。", Forbidden),
            doc(200, "invalidparameter.invalidparameter", "参数不合法。", BadRequest),
            doc(200, "invalidparametervalue", "参数取值错误。", BadRequest),
            doc(200, "invalidparametervalue.model", "模型不存在。", NotFound),
            doc(200, "invalidparametervalue.parametervalueerror", "参数字段或者值有误", BadRequest),
            doc(200, "operationdenied.imageillegaldetected", "图片可能包含敏感信息，请重试", ContentFiltered),
            doc(200, "operationdenied.textillegaldetected", "文本包含违法违规信息，审核不通过。", ContentFiltered),
            // Hunyuan's ResourceInsufficient.* are billing resources, so the family is a payment.
            doc(200, "resourceinsufficient", "资源不足。", PaymentRequired),
            doc(200, "resourceinsufficient.chargeresourceexhaust", "计费资源已耗尽。", PaymentRequired),
            doc(200, "resourceunavailable.inarrears", "账号已欠费。", PaymentRequired),
            doc(200, "resourceunavailable.lowbalance", "余额不足。", PaymentRequired),
            doc(200, "resourceunavailable.notexist", "计费状态未知，请确认是否已在控制台开通服务。", Forbidden),
            doc(200, "resourceunavailable.stopusing", "账号已停服。", Forbidden),
            doc(200, "unsupportedoperation.nonwhitelistaccount", "非白名单帐号，请前往控制台申请试用。", Forbidden),
        ],
    },
];

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) Zhipu's codes (docs.bigmodel.cn/cn/faq/api-code) decide over the words and
    /// the status around them, and are read through typographic quotes too.
    #[test]
    fn zhipu_codes_decide() {
        let body = |code: &str, msg: &str| {
            format!("{{\"error\":{{\"code\":\"{code}\",\"message\":\"{msg}\"}}}}")
        };
        let cases: &[(Option<u16>, String, Category)] = &[
            // 1234 网络错误 under a 500: the platform's network, not the caller's link.
            (
                Some(500),
                body("1234", "网络错误，错误id：2026022610293，请联系客服。"),
                ServerError,
            ),
            (Some(400), body("1214", "messages:输入不能为空"), BadRequest),
            (
                Some(400),
                body("1213", "未正常接收到prompt参数。"),
                BadRequest,
            ),
            (
                Some(429),
                body("1113", "您的账户已欠费，请充值后重试。"),
                PaymentRequired,
            ),
            (
                Some(429),
                body(
                    "1302",
                    "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。",
                ),
                RateLimited,
            ),
            (Some(400), body("1261", "Prompt 超长"), ContextOverflow),
            (Some(500), body("1200", "API 调用失败"), ServerError),
            (
                Some(401),
                body("1005", "已开启二次认证保护，需要二次认证登录。"),
                Unauthorized,
            ),
        ];
        for (status, b, want) in cases {
            let f = match status {
                Some(s) => Failure::http(*s, b.as_str()),
                None => Failure::new(b.as_str()),
            }
            .with_body(b.as_str());
            assert_eq!(classify(&f).category, *want, "{status:?} {b}");
        }
        // The same envelopes pasted with typographic quotes (geekai-plus#1), no status.
        for (text, want) in [
            (
                "请求大模型 API 失败：{“error”:{“code”:“1214”,“message”:“messages:输入不能为空”}}",
                BadRequest,
            ),
            (
                "请求失败：{“error”:{“code”:“1113”,“message”:“余额不足或无可用资源包,请充值。”}}",
                PaymentRequired,
            ),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, false), "{text}");
        }
    }
}
