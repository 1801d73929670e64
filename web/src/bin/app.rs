//! The page's entry point (built by Trunk, see /index.html).

fn main() {
    prv_web::app::render();
}
