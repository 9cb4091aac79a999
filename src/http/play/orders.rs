//! Standing orders (programmed moves, see `service::play::orders`): list, set, edit and cancel
//! the caller's own.

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use crate::service::play::orders::{self, Change, OrderRequest, Orders};
use actix_web::{HttpResponse, delete, get, post, put, web};
use uuid::Uuid;

/// The answer carrying a seat's orders: private to its player, never cached by others.
fn private(orders: Orders) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "private, no-store"))
        .json(orders)
}

/// Makes `change` to the caller's orders in `game_id` (with `game:play`) and answers them.
async fn change(
    state: &AppState,
    caller: &Caller,
    game_id: Uuid,
    change: Change<'_>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let orders = orders::change(
        &state.pool,
        &state.cache,
        &state.config.clock,
        caller.user_id,
        game_id,
        change,
    )
    .await?;
    Ok(private(orders))
}

/// The caller's standing orders in this game (programmed moves the server plays for their
/// seat the moment they fit), what the server played for the seat on its own or did with
/// its orders (`news`), and whether the seat may answer a coming decision ahead now
/// (`occasion`). Only the seat's player ever sees them: no view, log, export (before the
/// end), stream, mail or other reader carries them.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The caller's orders.", body = Orders),
        (status = 400, description = "A bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or the caller may not read it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/orders")]
pub async fn list_orders(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    Ok(private(
        orders::list(&state.pool, caller.user_id, path.into_inner()).await?,
    ))
}

/// Set a standing order for the caller's seat: checked on what the seat sees now
/// (the game's rule codes, status 422, say why one is refused), it replaces the caller's
/// orders that answer the same decision (see the game's `RULES.md`, "Standing orders and
/// forced moves"). If it fits the position already (the seat is to act and the order
/// plays), the server plays it at once, as the seat's own move: the answer's `version` is
/// then the game's new version, and the move is in the log like a click. Otherwise the
/// game's version and `ETag` do not move. Setting the same order again changes nothing
/// more.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    request_body = OrderRequest,
    responses(
        (status = 200, description = "Set: the caller's orders as they now stand.", body = Orders),
        (status = 400, description = "Malformed JSON, wrong types, or a bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or the caller may not read it.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active` (the game has not started or has ended), `seat_forfeited`, `too_many_orders` (with `max_orders`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_order` (not an order of this game), or a rule code of the game's saying why the order cannot stand (`order_not_now`, `invalid_order`, ...).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/orders")]
pub async fn set_order(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    body: Json<OrderRequest>,
) -> Result<HttpResponse, ApiError> {
    change(&state, &caller, path.into_inner(), Change::Set(&body.order)).await
}

/// Edit a standing order of the caller's seat: the new order takes its place (and its id),
/// checked as when set, and plays at once if it fits already.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("order_id" = u64, Path, description = "The order's id."),
    ),
    request_body = OrderRequest,
    responses(
        (status = 200, description = "Edited: the caller's orders as they now stand.", body = Orders),
        (status = 400, description = "Malformed JSON, wrong types, or a bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, or `order_not_found` (the order played, was dropped or cancelled meanwhile).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `seat_forfeited`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_order`, or a rule code of the game's.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/games/{game_id}/orders/{order_id}")]
pub async fn edit_order(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, u64)>,
    body: Json<OrderRequest>,
) -> Result<HttpResponse, ApiError> {
    let (game_id, order_id) = path.into_inner();
    change(
        &state,
        &caller,
        game_id,
        Change::Replace(order_id, &body.order),
    )
    .await
}

/// Cancel a standing order of the caller's seat.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("order_id" = u64, Path, description = "The order's id."),
    ),
    responses(
        (status = 200, description = "Cancelled: the caller's orders as they now stand.", body = Orders),
        (status = 400, description = "A bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, or `order_not_found` (it played, was dropped or cancelled already).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `seat_forfeited`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{game_id}/orders/{order_id}")]
pub async fn cancel_order(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, u64)>,
) -> Result<HttpResponse, ApiError> {
    let (game_id, order_id) = path.into_inner();
    change(&state, &caller, game_id, Change::Cancel(order_id)).await
}
