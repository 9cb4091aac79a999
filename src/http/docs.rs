//! The OpenAPI description as served (built once at start, see `openapi::build`).

use crate::http::state::AppState;
use actix_web::get;

/// This description (OpenAPI 3.1).
#[utoipa::path(
    tag = "meta",
    responses((status = 200, description = "The OpenAPI description of this API.", body = Object))
)]
#[get("/openapi.json")]
pub async fn serve_spec(state: actix_web::web::Data<AppState>) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok().json(&state.openapi)
}
