package dev.cadre.platform.runs;

import dev.cadre.platform.support.PlatformTest;

/** {@link StoredEventFormatContract} on the embedded H2 default. */
@PlatformTest
class StoredEventFormatTest extends StoredEventFormatContract {}
