//! Phrase families in the languages besides English (and Chinese words the main tables lacked) that LLM APIs, their gateways
//! and the apps in front of them answer in (Japanese, Korean, Russian, Spanish, Portuguese,
//! French, German): rate, balance, quota window, context length and "try again later". Each
//! family says one nature in every language, so a provider nobody here has seen that answers in
//! one of them is read as its English words would be (`text::permanent`, `text::transient` and
//! `text::long_window` compile these rows after the main tables; the text is lower-cased,
//! Unicode-aware where it is not ASCII).
//!
//! Sources: the providers that publish their tables in these languages (Naver CLOVA Studio,
//! api.ncloud-docs.com/docs/clovastudio-troubleshoot-s4xx and its ja page: 요청 수 초과 /
//! リクエスト数超過 on 429, 토큰 수 초과 / トークン数超過 on a too-long input; Sber GigaChat,
//! developers.sber.ru/docs/ru/gigachat/api/errors-description: закончились токены on 402) and,
//! for the rest, the plain words of each language for the nature, kept to phrases that name
//! nothing else. A row that only rates, balances or asks to wait is as safe as its English twin.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Permanent natures: balance and credits gone, input over the context length. `stated`, as
/// their English rows are: they overrule a 429 or a 5xx that carries them.
pub const PERMANENT: &[Phrase] = &[
    // Balance / credits exhausted.
    stated("saldo insuficiente", PaymentRequired), // es, pt
    stated("créditos insuficientes", PaymentRequired), // es, pt
    stated("crédito insuficiente", PaymentRequired),
    stated("solde insuffisant", PaymentRequired), // fr
    stated("crédits insuffisants", PaymentRequired),
    stated("guthaben reicht nicht", PaymentRequired), // de
    stated("unzureichendes guthaben", PaymentRequired),
    stated("nicht genügend guthaben", PaymentRequired),
    stated("недостаточно средств", PaymentRequired), // ru: not enough funds
    stated("недостаточно кредитов", PaymentRequired),
    stated("закончились токены", PaymentRequired), // GigaChat 402: the model's tokens ran out
    stated("残高不足", PaymentRequired),           // ja: insufficient balance
    stated("残高が不足", PaymentRequired),
    stated("クレジットが不足", PaymentRequired),
    stated("잔액 부족", PaymentRequired), // ko: insufficient balance
    stated("잔액이 부족", PaymentRequired),
    stated("크레딧이 부족", PaymentRequired),
    // The input is over the model's context length.
    stated("longitud máxima del contexto", ContextOverflow), // es
    stated("longitud de contexto", ContextOverflow),
    stated("comprimento máximo do contexto", ContextOverflow), // pt
    stated("longueur maximale du contexte", ContextOverflow),  // fr
    stated("maximale kontextlänge", ContextOverflow),          // de
    stated("максимальная длина контекста", ContextOverflow),   // ru
    stated("длина контекста", ContextOverflow),
    stated("コンテキスト長", ContextOverflow), // ja: context length
    stated("トークン数超過", ContextOverflow), // CLOVA Studio ja: 64400, too many tokens in the input
    stated("컨텍스트 길이", ContextOverflow),  // ko: context length
    stated("토큰 수 초과", ContextOverflow),   // CLOVA Studio ko: 64400
    // Chinese families the main tables lacked, from the providers' and gateways' own tables:
    // Zhipu (docs.bigmodel.cn/cn/api/api-code: 1000 身份验证失败, 1003 Token 已过期, 1220 您无权访问,
    // 1261 Prompt 超长), iFlow (platform.iflow.cn/docs/error-codes: 60400 用户积分不足, 90402
    // API Key 无效), Tencent Cloud common codes (cloud.tencent.com/document/api/239/1757: 4100
    // 身份认证失败, 4300 拒绝访问), crazyrouter (docs.crazyrouter.com/error-handling: 401 认证失败,
    // 403 权限不足).
    said("身份验证失败", Unauthorized),
    said("身份认证失败", Unauthorized),
    said("认证失败", Unauthorized),
    said("鉴权失败", Unauthorized),
    said("api key 无效", Unauthorized),
    said("api key无效", Unauthorized),
    said("token 已过期", Unauthorized),
    // (batch 23) the same 1003 as the API serves it, no space ("Authorization Token已过期，请重新
    // 生成/获取。", langgenius/dify#2066).
    said("token已过期", Unauthorized),
    said("无权访问", Forbidden),
    said("权限不足", Forbidden),
    said("没有权限", Forbidden),
    said("拒绝访问", Forbidden),
    stated("积分不足", PaymentRequired),
    stated("点数不足", PaymentRequired),
    stated("额度用尽", PaymentRequired),
    stated("配额已用完", PaymentRequired),
    stated("长度超过", ContextOverflow),
    stated("超出最大长度", ContextOverflow),
    stated("上下文长度", ContextOverflow),
    stated("输入过长", ContextOverflow),
];

/// Transient natures: a rate limit, a quota whose window refills, "try again later".
pub const TRANSIENT: &[Phrase] = &[
    said("demasiadas solicitudes", RateLimited), // es: too many requests
    said("demasiadas peticiones", RateLimited),
    said("límite de velocidad", RateLimited),
    said("cuota excedida", RateLimited),
    said("muitas solicitações", RateLimited), // pt
    said("muitas requisições", RateLimited),
    said("limite de taxa", RateLimited),
    said("cota excedida", RateLimited),
    said("trop de requêtes", RateLimited), // fr
    said("trop de demandes", RateLimited),
    said("limite de débit", RateLimited),
    said("quota dépassé", RateLimited),
    said("zu viele anfragen", RateLimited), // de
    said("ratenbegrenzung", RateLimited),
    said("kontingent überschritten", RateLimited),
    said("слишком много запросов", RateLimited), // ru
    said("превышен лимит запросов", RateLimited),
    said("превышена квота", RateLimited),
    // (batch 29) "Превышен предел использования" (chatgpt_telegram_bot ru: usage limit
    // exceeded, no window named): предел and лимит are both "limit".
    said("превышен предел", RateLimited),
    said("превышен лимит", RateLimited),
    said("лимит превышен", RateLimited),
    said("リクエストが多すぎ", RateLimited), // ja
    said("リクエスト数超過", RateLimited),   // CLOVA Studio ja: 64429
    said("レート制限", RateLimited),
    said("요청이 너무 많", RateLimited), // ko
    said("요청 수 초과", RateLimited),   // CLOVA Studio ko: 64429
    said("요청 한도", RateLimited),
    // Try again later: the server's own word that the failure passes.
    said("más tarde", ServerError), // es: inténtelo de nuevo más tarde
    said("mais tarde", ServerError), // pt: tente novamente mais tarde
    said("plus tard", ServerError), // fr: réessayez plus tard
    said("später erneut", ServerError), // de: versuchen Sie es später erneut
    said("попробуйте позже", ServerError), // ru
    said("повторите попытку позже", ServerError),
    said("しばらくしてから", ServerError), // ja
    said("後でもう一度", ServerError),
    said("잠시 후 다시", ServerError), // ko
    said("나중에 다시", ServerError),
    // Chinese transport and server words (same sources as above; Tencent 6000 服务器内部错误,
    // 6200 接口暂时无法访问 "停服维护"; crazyrouter 502 上游服务不可用, 503 服务暂时不可用; iFlow
    // 40303 "哎呀,大家太热情了,等一下再试试吧" for its rate limit, 500 "等一下再试试吧").
    said("大家太热情", RateLimited),
    said("超过配额", RateLimited), // Tencent 4400: the request count is over its quota
    said("超时", Timeout),         // 请求超时 / 连接超时
    said("网络错误", Connection),
    said("网络异常", Connection),
    said("连接失败", Connection),
    said("连接被重置", Connection),
    said("连接中断", Connection),
    said("连接被拒绝", Connection),
    said("无法连接", Connection),
    said("服务不可用", ServerError),
    said("内部错误", ServerError),
    said("系统错误", ServerError),
    said("服务异常", ServerError),
    said("系统异常", ServerError),
    said("暂时无法访问", ServerError),
    // The service is down for maintenance (接口维护 / 停服维护 / 系统维护 / 维护中); "请联系维护人员"
    // (ask the maintainer) is no such word.
    said("接口维护", ServerError),
    said("停服维护", ServerError),
    said("系统维护", ServerError),
    said("维护中", ServerError),
    said("等一下再试", ServerError),
];

/// Windows of a day or more, as the English `per day` / `daily` rows (read only where the
/// failure is already a rate limit).
pub const LONG_WINDOW: &[Phrase] = &[
    said("por día", PaymentRequired), // es
    said("diario", PaymentRequired),
    said("diaria", PaymentRequired),
    said("por dia", PaymentRequired), // pt
    said("diário", PaymentRequired),
    said("diária", PaymentRequired),
    said("par jour", PaymentRequired), // fr
    said("quotidien", PaymentRequired),
    said("pro tag", PaymentRequired), // de
    said("täglich", PaymentRequired),
    said("в сутки", PaymentRequired), // ru
    said("в день", PaymentRequired),
    said("суточн", PaymentRequired),
    said("1日あたり", PaymentRequired), // ja
    said("日次", PaymentRequired),
    said("일일", PaymentRequired), // ko
    said("por mes", PaymentRequired),
    said("par mois", PaymentRequired),
    said("pro monat", PaymentRequired),
    said("в месяц", PaymentRequired),
];

#[cfg(test)]
mod batch29b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29) Russian limit words (chatgpt_telegram_bot's ru locale "Превышен предел
    /// использования") read as their English twins.
    #[test]
    fn russian_limit_words_are_rate_limits() {
        for (text, want) in [
            (
                "Не удалось получить ответ ⚠️ Превышен предел использования",
                RateLimited,
            ),
            ("Ошибка: лимит превышен", RateLimited),
            ("Превышен лимит использования API", RateLimited),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, true), "{text}");
        }
    }
}
