//! Requests are held to what the description documents before any handler sees them: a
//! path answers only its documented methods, and (one policy for query parameters,
//! everywhere) an operation takes the query parameters its description lists and no others. An unknown one is refused with 400 `invalid_parameter`
//! naming it (a misspelt `limt=5` would otherwise be silently ignored on operations without
//! query parameters, while those with them refused it). Unknown members of JSON bodies are
//! refused the same way by each body type (`deny_unknown_fields`).

use crate::http::error::{ApiError, ErrorCode};
use crate::http::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, web};

/// Refuses requests with query parameters their operation does not take (middleware for
/// `actix_web::middleware::from_fn`; inside `head_as_get`, so `HEAD` is checked as `GET`).
pub async fn refuse_unknown_parameters(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    // A path that exists answers only its documented methods, even where the router would
    // hand the request to a neighbouring route (`GET /games/import` to `/games/{game_id}`).
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let documented = super::methods::documented(&state.openapi, req.path());
    let allowed = documented.allowed_methods();
    if !allowed.is_empty() && !allowed.contains(req.method()) {
        let (req, _) = req.into_parts();
        let response = super::methods::unrouted(req.clone(), state).await;
        return Ok(ServiceResponse::new(req, response).map_into_right_body());
    }
    if !req.query_string().is_empty()
        && let Some(names) = documented.query_parameters(req.method())
    {
        let unknown: Vec<String> = url::form_urlencoded::parse(req.query_string().as_bytes())
            .map(|(name, _)| name.into_owned())
            .filter(|name| !names.contains(name))
            .collect();
        if let Some(first) = unknown.first() {
            let takes = if names.is_empty() {
                "takes no query parameters".to_string()
            } else {
                let list: Vec<&str> = names.iter().map(String::as_str).collect();
                format!("takes only {}", list.join(", "))
            };
            let error = ApiError::bad_request(
                ErrorCode::InvalidParameter,
                format!(
                    "unknown query parameter `{first}`: {} {} {takes}",
                    req.method(),
                    req.path()
                ),
            )
            .with("parameter", first.as_str());
            let (req, _) = req.into_parts();
            return Ok(
                ServiceResponse::new(req, actix_web::ResponseError::error_response(&error))
                    .map_into_right_body(),
            );
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}
