/**
 * The Cadre platform: a Spring Boot application that wires agent-core and memory into a REST, A2A
 * and console service. One package per feature, free of cycles (see ArchitectureTest); each
 * database table has one owning store that the other packages ask through query methods.
 */
@NullMarked
package dev.cadre.platform;

import org.jspecify.annotations.NullMarked;
