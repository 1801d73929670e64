//! The Web Worker entry point (built by Trunk as `data-type="worker"`, see /index.html).

fn main() {
    prv_web::worker::start();
}
