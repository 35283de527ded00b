package dev.cadre.platform.runs;

import dev.cadre.platform.support.PlatformTest;

/** {@link KeysetPagingContract} on the embedded default (H2). */
@PlatformTest
class KeysetPagingTest extends KeysetPagingContract {}
