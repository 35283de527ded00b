/**
 * Inbound integrations with monitoring systems (Alertmanager webhooks) that turn alerts into
 * incidents and runs.
 */
@NullMarked
package dev.cadre.platform.integrations;

import org.jspecify.annotations.NullMarked;
